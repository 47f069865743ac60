import nodemailer from 'nodemailer';

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Stable per outbox row, so an SMTP retry can be recognised downstream. */
  messageId: string;
}

/** How an outbox message leaves the building. */
export interface MailTransport {
  readonly name: string;
  send(message: MailMessage): Promise<void>;
}

/**
 * The embedded default: the outbox table is the mailbox (developers read it through
 * `GET /dev/emails` or SQL), so "sending" has nothing left to do.
 */
export const outboxOnlyTransport: MailTransport = {
  name: 'outbox',
  async send() {},
};

/** SMTP through nodemailer, a maintained client that handles TLS, auth and pooling. */
export function smtpTransport(smtpUrl: string): MailTransport {
  const transporter = nodemailer.createTransport(smtpUrl);
  return {
    name: 'smtp',
    async send(message) {
      await transporter.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId: `<${message.messageId}@marketplace>`,
      });
    },
  };
}

export const createMailTransport = (smtpUrl: string | undefined): MailTransport => (smtpUrl ? smtpTransport(smtpUrl) : outboxOnlyTransport);

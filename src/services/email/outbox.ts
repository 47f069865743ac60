import { IsNull, type DataSource } from 'typeorm';
import { EmailMessage } from '../../db/entities';
import type { MailTransport } from '../../integrations/email/transport';

/** Hands outbox messages to the mail transport (the worker's delivery step). */
export class EmailDelivery {
  constructor(
    private readonly db: DataSource,
    private readonly transport: MailTransport,
    private readonly from: string,
  ) {}

  /** Sends an outbox message once; a delivered message is not sent again. */
  async deliver(messageId: string): Promise<void> {
    const message = await this.db.getRepository(EmailMessage).findOneBy({ id: messageId, deliveredAt: IsNull() });
    if (!message) return;
    await this.transport.send({ from: this.from, to: message.to, subject: message.subject, text: message.text, messageId });
    await this.db.getRepository(EmailMessage).update({ id: messageId }, { deliveredAt: new Date() });
  }
}

/** Reads the outbox, so a developer without an SMTP server can see what was sent. */
export class EmailOutbox {
  constructor(private readonly db: DataSource) {}

  /** The newest messages to an address (case-insensitive), newest first. */
  recentTo(address: string, limit = 20): Promise<EmailMessage[]> {
    return this.db
      .getRepository(EmailMessage)
      .createQueryBuilder('m')
      .where('lower(m.to_address) = lower(:to)', { to: address })
      .orderBy('m.created_at', 'DESC')
      .limit(limit)
      .getMany();
  }
}

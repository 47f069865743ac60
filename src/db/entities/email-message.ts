import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * The e-mail outbox. Every message the service sends is written here first; with SMTP
 * configured a delivery activity sends it and stamps `delivered_at`, otherwise (the embedded
 * default) this table is the mailbox developers read.
 */
@Entity({ name: 'email_messages' })
export class EmailMessage {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'to_address', type: 'text' })
  to: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ name: 'body_text', type: 'text' })
  text: string;

  /** What the message is about, e.g. `email-change`, for finding it again. */
  @Column({ type: 'text' })
  kind: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;
}

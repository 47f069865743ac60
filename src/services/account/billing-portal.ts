import { createHmac } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { constantTimeEqual } from '../auth/secrets';
import { DomainError } from '../errors';

export interface BillingPortalPage {
  username: string;
  expiresAt: Date;
  invoices: Array<{ id: string; number: string; purchaseId: string; total: number; createdAt: Date }>;
  payments: Array<{ id: string; status: string; total: number; purchaseId: string | null; createdAt: Date }>;
}

const linkInvalid = () =>
  new DomainError('not-found', 'billing-link-invalid', 'This billing portal link is invalid or has expired; ask for a new one.');

/**
 * The billing portal of the payment simulator: a signed, expiring link to a page listing the
 * user's invoices and payment history. The link is the capability (like a provider's hosted
 * portal session): `<base64url(userId.expiresEpochSeconds)>.<HMAC-SHA256>`, nothing stored.
 */
export class BillingPortal {
  constructor(
    private readonly db: DataSource,
    private readonly options: { key: Uint8Array; publicBaseUrl: string; ttlSeconds: number },
  ) {}

  link(userId: string, now = new Date()): { url: string; expiresAt: Date } {
    const expiresAt = new Date(Math.floor(now.getTime() / 1000 + this.options.ttlSeconds) * 1000);
    const payload = Buffer.from(`${userId}.${expiresAt.getTime() / 1000}`).toString('base64url');
    return { url: `${this.options.publicBaseUrl}/billing-portal/${payload}.${this.sign(payload)}`, expiresAt };
  }

  async page(token: string, now = new Date()): Promise<BillingPortalPage> {
    const [payload, signature] = token.split('.');
    if (!payload || !signature || !constantTimeEqual(signature, this.sign(payload))) throw linkInvalid();
    const [userId, expires] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
    if (!userId || !expires || Number(expires) * 1000 <= now.getTime()) throw linkInvalid();
    const [user]: Array<{ username: string }> = await this.db.query(`SELECT username FROM users WHERE id = $1`, [userId]);
    if (!user) throw linkInvalid();
    const invoices = await this.db.query(
      `SELECT id, number, purchase_id AS "purchaseId", total, created_at AS "createdAt" FROM invoices WHERE buyer_id = $1 ORDER BY created_at DESC, id LIMIT 200`,
      [userId],
    );
    const payments = await this.db.query(
      `SELECT id, status, total, purchase_id AS "purchaseId", created_at AS "createdAt" FROM checkout_sessions WHERE buyer_id = $1 ORDER BY created_at DESC, id LIMIT 200`,
      [userId],
    );
    return { username: user.username, expiresAt: new Date(Number(expires) * 1000), invoices, payments };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.options.key).update(`billing-portal:${payload}`).digest('base64url');
  }
}

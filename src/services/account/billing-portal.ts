import type { DataSource } from 'typeorm';
import type { SignedLinks } from '../auth/signed-links';
import { DomainError } from '../errors';
import { SESSION_STATUS_NOW } from '../checkout/checkouts';

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
 * portal session), signed by `SignedLinks` for the `billing-portal` purpose; nothing stored.
 */
export class BillingPortal {
  constructor(
    private readonly db: DataSource,
    private readonly links: SignedLinks,
    private readonly publicBaseUrl: string,
  ) {}

  link(userId: string, now = new Date()): { url: string; expiresAt: Date } {
    const { token, expiresAt } = this.links.issue('billing-portal', userId, now);
    return { url: `${this.publicBaseUrl}/billing-portal/${token}`, expiresAt };
  }

  async page(token: string, now = new Date()): Promise<BillingPortalPage> {
    const link = this.links.verify('billing-portal', token, now);
    if (!link) throw linkInvalid();
    const userId = link.subject;
    const [user]: Array<{ username: string }> = await this.db.query(`SELECT username FROM users WHERE id = $1`, [userId]);
    if (!user) throw linkInvalid();
    const invoices = await this.db.query(
      `SELECT id, number, purchase_id AS "purchaseId", total, created_at AS "createdAt" FROM invoices WHERE buyer_id = $1 ORDER BY created_at DESC, id LIMIT 200`,
      [userId],
    );
    const payments = await this.db.query(
      `SELECT id, ${SESSION_STATUS_NOW} AS status, total, purchase_id AS "purchaseId", created_at AS "createdAt"
         FROM checkout_sessions WHERE buyer_id = $1 ORDER BY created_at DESC, id LIMIT 200`,
      [userId],
    );
    return { username: user.username, expiresAt: link.expiresAt, invoices, payments };
  }
}

import type { DataSource } from 'typeorm';
import type { SignedLinks, SignedLinkPurpose } from '../auth/signed-links';
import { DomainError } from '../errors';
import type { PayoutView } from './payouts';
import type { SellerMoney } from './seller-money';
import type { TransferView } from './transfers';

/** How many rows of each list a page shows, newest first. */
export const MONEY_PAGE_ROWS = { payouts: 50, transfers: 20, billing: 200 } as const;

export interface SellerPayoutsPage {
  username: string;
  expiresAt: Date;
  balance: { available: number; pending: number; currency: string; nextPayoutDate: string | null };
  payouts: PayoutView[];
  transfers: TransferView[];
}

export interface SellerBillingPage {
  username: string;
  expiresAt: Date;
  /** The ledger's `platform_seller_fee` rows of the seller's orders: + charged at payment, − given back by a refund. */
  fees: Array<{ orderId: string; event: 'PAYMENT' | 'REFUND'; amount: number; createdAt: Date }>;
  refunds: Array<{ orderId: string; reason: 'CASE' | 'CANCELLATION'; kind: string; amount: number; createdAt: Date }>;
  reversals: Array<{ orderId: string; amount: number; createdAt: Date }>;
  /**
   * The ledger's `platform_refund_losses` rows of the seller's orders, as the seller owes them:
   * + a refund the platform covered because the money was paid out already (REFUND), − repaid
   * from a later release or a returned payout (LOSS_RECOVERED, a RECOVERY transfer).
   */
  losses: Array<{ orderId: string; event: 'REFUND' | 'LOSS_RECOVERED'; owed: number; createdAt: Date }>;
  /** What the seller still owes the platform for refund losses: the sum over every such row. */
  owed: number;
  /** The seller's account at the payout simulator's bank, if one was set up; null: none on file. */
  paymentMethod: { kind: 'SIMULATED_BANK_ACCOUNT'; refusesPayouts: boolean } | null;
}

const linkInvalid = () =>
  new DomainError(
    'not-found',
    'simulator-link-invalid',
    'This payouts or billing link is invalid or has expired; open it again from the dashboard.',
  );

/**
 * The payment simulator's seller pages behind `GET /seller/dashboard`: payouts and billing.
 * They show money, so they open only through a signed, expiring link (`SignedLinks`, the rule
 * of the billing portal), never by a seller id in the URL. The figures come from the same reads
 * as `/seller/balance`, `/seller/payouts` and `/seller/transfers`.
 */
export class SellerMoneyPages {
  constructor(
    private readonly db: DataSource,
    private readonly links: SignedLinks,
    private readonly money: SellerMoney,
  ) {}

  async payouts(token: string, now = new Date()): Promise<SellerPayoutsPage> {
    const { sellerId, username, expiresAt } = await this.open('simulator-payouts', token, now);
    const [balance, payouts, transfers] = await Promise.all([
      this.money.balance(sellerId),
      this.money.payouts(sellerId, { size: MONEY_PAGE_ROWS.payouts }),
      this.money.transfers(sellerId, { size: MONEY_PAGE_ROWS.transfers }),
    ]);
    return { username, expiresAt, balance, payouts: payouts.payouts, transfers: transfers.transfers };
  }

  async billing(token: string, now = new Date()): Promise<SellerBillingPage> {
    const { sellerId, username, expiresAt } = await this.open('simulator-billing', token, now);
    const limit = MONEY_PAGE_ROWS.billing;
    const [fees, refunds, reversals, losses, owed, banks] = await Promise.all([
      this.db.query(
        `SELECT e.order_id AS "orderId", t.event, e.amount::int AS amount, e.created_at AS "createdAt"
           FROM orders o JOIN ledger_entries e ON e.order_id = o.id AND e.account = 'platform_seller_fee'
           JOIN ledger_transactions t ON t.id = e.transaction_id
          WHERE o.seller_id = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT $2`,
        [sellerId, limit],
      ),
      this.db.query(
        `SELECT a.order_id AS "orderId", a.reason, a.kind, a.amount::int AS amount, a.created_at AS "createdAt"
           FROM orders o JOIN adjustments a ON a.order_id = o.id
          WHERE o.seller_id = $1 AND a.type = 'REFUND' ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
        [sellerId, limit],
      ),
      this.db.query(
        `SELECT order_id AS "orderId", amount::int AS amount, created_at AS "createdAt"
           FROM transfers WHERE seller_id = $1 AND type = 'REVERSAL' ORDER BY id DESC LIMIT $2`,
        [sellerId, limit],
      ),
      this.db.query(
        `SELECT e.order_id AS "orderId", t.event, (-e.amount)::int AS owed, e.created_at AS "createdAt"
           FROM orders o JOIN ledger_entries e ON e.order_id = o.id AND e.account = 'platform_refund_losses'
           JOIN ledger_transactions t ON t.id = e.transaction_id
          WHERE o.seller_id = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT $2`,
        [sellerId, limit],
      ),
      // Over every row, not just the page's: the figure recoveries work down.
      this.db.query(
        `SELECT COALESCE(-sum(e.amount), 0)::int AS owed
           FROM orders o JOIN ledger_entries e ON e.order_id = o.id AND e.account = 'platform_refund_losses' WHERE o.seller_id = $1`,
        [sellerId],
      ) as Promise<Array<{ owed: number }>>,
      this.db.query(`SELECT fails FROM simulator_bank_accounts WHERE seller_id = $1`, [sellerId]) as Promise<Array<{ fails: boolean }>>,
    ]);
    const bank = banks[0];
    return {
      username,
      expiresAt,
      fees,
      refunds,
      reversals,
      losses,
      owed: owed[0]!.owed,
      paymentMethod: bank ? { kind: 'SIMULATED_BANK_ACCOUNT', refusesPayouts: bank.fails } : null,
    };
  }

  /** The seller a valid link of `purpose` was issued to; anything else is the same 404. */
  private async open(
    purpose: SignedLinkPurpose,
    token: string,
    now: Date,
  ): Promise<{ sellerId: string; username: string; expiresAt: Date }> {
    const link = this.links.verify(purpose, token, now);
    if (!link) throw linkInvalid();
    const [seller]: Array<{ username: string }> = await this.db.query(
      `SELECT u.username FROM users u JOIN seller_accounts s ON s.user_id = u.id WHERE u.id = $1`,
      [link.subject],
    );
    if (!seller) throw linkInvalid();
    return { sellerId: link.subject, username: seller.username, expiresAt: link.expiresAt };
  }
}

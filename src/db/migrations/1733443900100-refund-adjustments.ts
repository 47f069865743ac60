import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Refunds: the payment simulator's refund records and the order adjustments they settle (docs/money.md). */
export class RefundAdjustments1733443900100 implements MigrationInterface {
  name = 'RefundAdjustments1733443900100';

  public async up(q: QueryRunner): Promise<void> {
    // What the embedded payment simulator refunded to the buyer's payment; it settles at once.
    await q.query(`
      CREATE TABLE payment_refunds (
        id uuid PRIMARY KEY,
        purchase_id uuid NOT NULL REFERENCES purchases(id),
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL DEFAULT 'GBP',
        status text NOT NULL CHECK (status IN ('SUCCEEDED')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE adjustments (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders(id),
        case_id uuid REFERENCES cases(id),
        -- One adjustment per accepted outcome: a retried case change cannot refund twice.
        outcome_id uuid UNIQUE REFERENCES case_outcomes(id),
        type text NOT NULL CHECK (type IN ('REFUND')),
        kind text NOT NULL CHECK (kind IN ('FULL', 'PARTIAL', 'DELIVERY')),
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL DEFAULT 'GBP',
        refund_id uuid NOT NULL REFERENCES payment_refunds(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX adjustments_order_idx ON adjustments (order_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE adjustments`);
    await q.query(`DROP TABLE payment_refunds`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Seller payouts and the simulated bank they go to (docs/money.md). */
export class Payouts1733443900300 implements MigrationInterface {
  name = 'Payouts1733443900300';

  public async up(q: QueryRunner): Promise<void> {
    // A payout on its way is still the seller's money, held apart from what they can pay out; a
    // refund the seller's balance no longer covers (paid out already) is the platform's loss.
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_check`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_check`);
    await q.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_check CHECK (account IN (
        'buyer_payments', 'platform_buyer_fee', 'platform_seller_fee', 'seller_pending', 'seller_available',
        'payouts_in_transit', 'platform_refund_losses', 'refunds', 'payouts'))`);
    await q.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_owner_check
        CHECK ((account IN ('seller_pending', 'seller_available', 'payouts_in_transit')) = (seller_id IS NOT NULL))`);
    await q.query(`
      CREATE TABLE payouts (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL REFERENCES users(id),
        run_date date NOT NULL,
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL DEFAULT 'GBP',
        status text NOT NULL CHECK (status IN ('CREATED', 'IN_TRANSIT', 'PAID', 'FAILED')),
        arrival_date date NOT NULL,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- One payout per seller per run: the workflow id payout:{sellerId}:{date} says the same.
        UNIQUE (seller_id, run_date)
      )`);
    await q.query(`CREATE INDEX payouts_seller_idx ON payouts (seller_id, id DESC)`);
    // The embedded payout simulator's bank: an account marked to fail refuses payouts.
    await q.query(
      `CREATE TABLE simulator_bank_accounts (seller_id uuid PRIMARY KEY REFERENCES users(id), fails boolean NOT NULL DEFAULT false)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE simulator_bank_accounts`);
    await q.query(`DROP TABLE payouts`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_owner_check`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_check`);
    await q.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_check CHECK (account IN (
        'buyer_payments', 'platform_buyer_fee', 'platform_seller_fee', 'seller_pending', 'seller_available', 'refunds', 'payouts'))`);
    await q.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_check CHECK ((account IN ('seller_pending', 'seller_available')) = (seller_id IS NOT NULL))`,
    );
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The double-entry ledger and the seller transfers it backs (docs/money.md). */
export class MoneyLedger1733443900000 implements MigrationInterface {
  name = 'MoneyLedger1733443900000';

  public async up(q: QueryRunner): Promise<void> {
    // One business event that moved money; its idempotency key makes a retried posting a no-op.
    await q.query(`
      CREATE TABLE ledger_transactions (
        id uuid PRIMARY KEY,
        event text NOT NULL,
        idempotency_key text NOT NULL UNIQUE,
        purchase_id uuid REFERENCES purchases(id),
        order_id uuid REFERENCES orders(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE ledger_entries (
        id uuid PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES ledger_transactions(id),
        account text NOT NULL CHECK (account IN (
          'buyer_payments', 'platform_buyer_fee', 'platform_seller_fee', 'seller_pending', 'seller_available', 'refunds', 'payouts')),
        seller_id uuid REFERENCES users(id),
        order_id uuid REFERENCES orders(id),
        amount bigint NOT NULL CHECK (amount <> 0),
        currency char(3) NOT NULL DEFAULT 'GBP',
        created_at timestamptz NOT NULL DEFAULT now(),
        -- Seller accounts are per seller; platform and external accounts belong to nobody.
        CHECK ((account IN ('seller_pending', 'seller_available')) = (seller_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id)`);
    await q.query(`CREATE INDEX ledger_entries_seller_idx ON ledger_entries (seller_id, account) WHERE seller_id IS NOT NULL`);
    await q.query(`CREATE INDEX ledger_entries_order_idx ON ledger_entries (order_id, account) WHERE order_id IS NOT NULL`);

    // Double entry enforced by the database, not only by the posting function: at commit, every
    // transaction that received entries must sum to zero in each currency.
    await q.query(`
      CREATE FUNCTION ledger_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ledger_entries WHERE transaction_id = NEW.transaction_id
                    GROUP BY currency HAVING sum(amount) <> 0) THEN
          RAISE EXCEPTION 'ledger transaction % does not sum to zero', NEW.transaction_id USING ERRCODE = '23514';
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced()`);
    // Append-only: a correction is a new transaction, never an edit of history.
    await q.query(`
      CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger entries are append-only' USING ERRCODE = '23514';
      END $$`);
    await q.query(`
      CREATE TRIGGER ledger_entries_no_change BEFORE UPDATE OR DELETE ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only()`);

    // A seller's share of one order moving pending → available (TRANSFER), or back out of
    // available for a refund after that (REVERSAL). A TRANSFER is PENDING from receipt until the
    // hold period ends, then COMPLETED.
    await q.query(`
      CREATE TABLE transfers (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL REFERENCES users(id),
        order_id uuid NOT NULL REFERENCES orders(id),
        type text NOT NULL CHECK (type IN ('TRANSFER', 'REVERSAL')),
        status text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED')),
        amount bigint NOT NULL CHECK (amount >= 0),
        currency char(3) NOT NULL DEFAULT 'GBP',
        available_on timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One release per order: a receipt replayed or a timer fired twice cannot add a second.
    await q.query(`CREATE UNIQUE INDEX transfers_one_release ON transfers (order_id) WHERE type = 'TRANSFER'`);
    await q.query(`CREATE INDEX transfers_seller_idx ON transfers (seller_id, id DESC)`);
    await q.query(`CREATE INDEX transfers_order_idx ON transfers (order_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE transfers`);
    await q.query(`DROP TABLE ledger_entries`);
    await q.query(`DROP FUNCTION ledger_entries_append_only()`);
    await q.query(`DROP FUNCTION ledger_transaction_balanced()`);
    await q.query(`DROP TABLE ledger_transactions`);
  }
}

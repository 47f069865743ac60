import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seller and operator work (docs/sellers-operators.md): the indexes behind the order, purchase
 * and case inboxes and their filters; the start of a case's current 7-day period (what its
 * escalation deadline is counted from); operators; seller suspension; and the append-only
 * operator audit log.
 */
export class SellersOperators1733443800000 implements MigrationInterface {
  name = 'SellersOperators1733443800000';

  public async up(q: QueryRunner): Promise<void> {
    // OPEN counts from the opening, REMEDIATION from the operator's decision (docs/cases.md).
    await q.query(`ALTER TABLE cases ADD COLUMN period_started_at timestamptz`);
    await q.query(`
      UPDATE cases c SET period_started_at = coalesce(
        (SELECT max(a.created_at) FROM case_actions a WHERE a.case_id = c.id AND a.kind = 'operator-remediate'), c.created_at)`);
    await q.query(`ALTER TABLE cases ALTER COLUMN period_started_at SET NOT NULL, ALTER COLUMN period_started_at SET DEFAULT now()`);

    // Seller inboxes: cases by deadline, orders by status / buyer, each within one seller.
    await q.query(`CREATE INDEX cases_seller_period_idx ON cases (seller_id, period_started_at)`);
    await q.query(`CREATE INDEX orders_seller_status_created_idx ON orders (seller_id, status, created_at DESC)`);
    await q.query(`CREATE INDEX orders_seller_buyer_created_idx ON orders (seller_id, buyer_id, created_at DESC)`);
    await q.query(`CREATE INDEX order_items_urn_idx ON order_items (urn, order_id)`);
    await q.query(`CREATE INDEX purchases_buyer_status_created_idx ON purchases (buyer_id, status, created_at DESC)`);
    // Operator case search: by status and age across all sellers.
    await q.query(`CREATE INDEX cases_status_created_idx ON cases (status, created_at)`);

    await q.query(`
      CREATE TABLE operators (
        user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        granted_by text NOT NULL,
        granted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      ALTER TABLE seller_accounts
        ADD COLUMN status_reason text,
        ADD COLUMN status_changed_at timestamptz,
        ADD COLUMN status_changed_by uuid REFERENCES users(id) ON DELETE SET NULL`);
    await q.query(`
      CREATE TABLE operator_audit_log (
        id uuid PRIMARY KEY,
        operator_id uuid NOT NULL,
        action text NOT NULL,
        subject_type text NOT NULL,
        subject_id text NOT NULL,
        reason text NOT NULL DEFAULT '',
        detail jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX operator_audit_log_created_idx ON operator_audit_log (created_at DESC, id)`);
    await q.query(`CREATE INDEX operator_audit_log_subject_idx ON operator_audit_log (subject_type, subject_id, created_at DESC)`);
    // Append-only in the database itself, not only by convention of the code that writes it.
    await q.query(`
      CREATE FUNCTION operator_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'operator_audit_log is append-only';
      END $$`);
    await q.query(`
      CREATE TRIGGER operator_audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON operator_audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION operator_audit_log_append_only()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE operator_audit_log`);
    await q.query(`DROP FUNCTION operator_audit_log_append_only()`);
    await q.query(`ALTER TABLE seller_accounts DROP COLUMN status_changed_by, DROP COLUMN status_changed_at, DROP COLUMN status_reason`);
    await q.query(`DROP TABLE operators`);
    for (const index of [
      'cases_status_created_idx',
      'purchases_buyer_status_created_idx',
      'order_items_urn_idx',
      'orders_seller_buyer_created_idx',
      'orders_seller_status_created_idx',
      'cases_seller_period_idx',
    ]) {
      await q.query(`DROP INDEX ${index}`);
    }
    await q.query(`ALTER TABLE cases DROP COLUMN period_started_at`);
  }
}

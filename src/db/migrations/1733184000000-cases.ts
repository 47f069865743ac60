import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cases: the dispute workflow's records. Extends the minimal `cases` table of the checkout
 * migration (workflow id, escalation and closing times) and adds outcomes, attachments and the
 * log of applied workflow changes (`case_actions`, the idempotency key of the case activity).
 * See docs/cases.md.
 */
export class Cases1733184000000 implements MigrationInterface {
  name = 'Cases1733184000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE cases
        ADD COLUMN workflow_id text GENERATED ALWAYS AS ('case:' || id::text) STORED,
        ADD COLUMN escalated_at timestamptz,
        ADD COLUMN closed_at timestamptz`);
    await q.query(`CREATE INDEX cases_buyer_created_idx ON cases (buyer_id, created_at DESC)`);
    await q.query(`CREATE INDEX cases_buyer_updated_idx ON cases (buyer_id, updated_at DESC)`);
    // "An item cannot be disputed twice at once" is checked against unclosed cases per item.
    await q.query(`CREATE INDEX case_items_order_item_idx ON case_items (order_item_id)`);
    await q.query(`
      CREATE TABLE case_outcomes (
        id uuid PRIMARY KEY,
        case_id uuid NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('RETURN', 'REFUND', 'REPLACEMENT')),
        party text NOT NULL CHECK (party IN ('BUYER', 'SELLER')),
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ACCEPTED', 'REJECTED', 'SUPERSEDED')),
        amount integer NOT NULL DEFAULT 0 CHECK (amount >= 0),
        comment text NOT NULL DEFAULT '',
        delivery_address jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX case_outcomes_case_idx ON case_outcomes (case_id, created_at)`);
    // At most one accepted outcome per case: an accepted outcome is final.
    await q.query(`CREATE UNIQUE INDEX case_outcomes_one_accepted ON case_outcomes (case_id) WHERE status = 'ACCEPTED'`);
    await q.query(`
      CREATE TABLE case_attachments (
        id uuid PRIMARY KEY REFERENCES uploads(id),
        case_id uuid NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        party text NOT NULL CHECK (party IN ('BUYER', 'SELLER')),
        image_id text NOT NULL,
        url text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX case_attachments_case_idx ON case_attachments (case_id, created_at)`);
    await q.query(`
      CREATE TABLE case_actions (
        id uuid PRIMARY KEY,
        case_id uuid NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        actor text NOT NULL CHECK (actor IN ('BUYER', 'SELLER', 'SYSTEM', 'OPERATOR')),
        kind text NOT NULL,
        status text NOT NULL,
        message_ids uuid[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX case_actions_case_idx ON case_actions (case_id, created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of ['case_actions', 'case_attachments', 'case_outcomes']) await q.query(`DROP TABLE ${table}`);
    await q.query(`DROP INDEX case_items_order_item_idx`);
    await q.query(`DROP INDEX cases_buyer_updated_idx`);
    await q.query(`DROP INDEX cases_buyer_created_idx`);
    await q.query(`ALTER TABLE cases DROP COLUMN closed_at, DROP COLUMN escalated_at, DROP COLUMN workflow_id`);
  }
}

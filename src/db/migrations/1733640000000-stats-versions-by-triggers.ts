import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account and seller stats versions (`users.account_stats_version`,
 * `seller_accounts.stats_version`), which the stats and seller search caches key on, are bumped
 * by the database on every write to a row they are counted from, instead of by each writer
 * remembering to call a function: a write that forgets cannot exist.
 *
 * How (as `item_market`): statement triggers on the counted tables note the owners whose figures
 * a statement changed (only when a counted column changed) in `stats_pending`; a deferred
 * constraint trigger on that table bumps them at commit, once per owner per transaction. At
 * commit, so a busy seller's row is locked only for the commit's last moments (the checkout
 * commit used to bump it last for that reason); in one order, users by id then seller accounts by
 * id, so two commits over the same owners cannot deadlock. `item_market_flush` bumps the versions
 * first, so every commit takes seller rows before the market's lock buckets, as before.
 *
 * Counted, per figure (src/services/account/account-stats.ts, src/services/sellers/seller-stats.ts):
 * - account: purchases (buyer, status, total), payment refunds (purchase, status, amount), cases
 *   (buyer, status), reviews (reviewer, reviewed user, deletion);
 * - seller: orders (seller, status), cases (seller, order, status), case outcomes (case, party,
 *   status), listings (every column but `reserved`: the seller search cache shows them all;
 *   checkout holds move `reserved` alone and stay bounded by the cache's TTL, as they were), their
 *   photos, and the seller's own status (the search cache keys on the version too).
 */
interface Counted {
  table: string;
  /** SQL over an updated row's new (`n`) and old (`o`) versions: true when the update moved a figure. */
  moved: string;
  /** SQL over a row `r`: the users whose account figures it feeds. */
  users?: string;
  /** SQL over a row `r`: the sellers whose seller figures it feeds. */
  sellers?: string;
}

/** An update that changed any of these columns. */
const changed = (...names: string[]) => {
  const of = (row: string) => names.map((name) => `${row}.${name}`).join(', ');
  return `(${of('n')}) IS DISTINCT FROM (${of('o')})`;
};

/**
 * Listings: any change but of `reserved` alone. Compared as whole rows (cheap) unless `reserved`
 * moved, so only holds, a row at a time, pay for the comparison without it.
 */
const LISTING_MOVED = `CASE WHEN n.reserved = o.reserved THEN n IS DISTINCT FROM o
                            ELSE to_jsonb(n) - 'reserved' IS DISTINCT FROM to_jsonb(o) - 'reserved' END`;

const COUNTED: Counted[] = [
  { table: 'purchases', moved: changed('buyer_id', 'status', 'total'), users: 'r.buyer_id' },
  {
    table: 'payment_refunds',
    moved: changed('purchase_id', 'status', 'amount'),
    users: '(SELECT p.buyer_id FROM purchases p WHERE p.id = r.purchase_id)',
  },
  {
    table: 'reviews',
    moved: changed('reviewer_id', 'reviewed_user_id', 'deleted_at'),
    users: 'unnest(ARRAY[r.reviewer_id, r.reviewed_user_id])',
  },
  { table: 'cases', moved: changed('buyer_id', 'seller_id', 'order_id', 'status'), users: 'r.buyer_id', sellers: 'r.seller_id' },
  {
    table: 'case_outcomes',
    moved: changed('case_id', 'party', 'status'),
    sellers: '(SELECT c.seller_id FROM cases c WHERE c.id = r.case_id)',
  },
  { table: 'orders', moved: changed('seller_id', 'status'), sellers: 'r.seller_id' },
  { table: 'listings', moved: LISTING_MOVED, sellers: 'r.seller_id' },
  {
    table: 'listing_attachments',
    moved: changed('listing_id', 'image_id', 'url', 'position'),
    sellers: '(SELECT l.seller_id FROM listings l WHERE l.id = r.listing_id)',
  },
];

const owners = (expr: string | undefined, rows: string) => (expr ? `ARRAY(SELECT DISTINCT ${expr} FROM ${rows} r)` : `'{}'::uuid[]`);

/** A statement trigger function noting the owners of the rows a statement inserted, deleted or changed. */
function noteFunction({ table, moved, users, sellers }: Counted): string {
  // Both versions of a changed row: a row that moves to another owner changes both owners' figures.
  const changedRows = `(SELECT r.* FROM new_rows n JOIN old_rows o ON o.id = n.id
                          CROSS JOIN LATERAL (SELECT n.* UNION ALL SELECT o.*) r WHERE ${moved})`;
  return `
    CREATE FUNCTION ${table}_note_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM stats_note(${owners(users, 'new_rows')}, ${owners(sellers, 'new_rows')});
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM stats_note(${owners(users, 'old_rows')}, ${owners(sellers, 'old_rows')});
      ELSE
        PERFORM stats_note(${owners(users, changedRows)}, ${owners(sellers, changedRows)});
      END IF;
      RETURN NULL;
    END $$`;
}

const statementTriggers = (table: string) => [
  `CREATE TRIGGER ${table}_stats_insert AFTER INSERT ON ${table}
     REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_note_stats()`,
  `CREATE TRIGGER ${table}_stats_update AFTER UPDATE ON ${table}
     REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_note_stats()`,
  `CREATE TRIGGER ${table}_stats_delete AFTER DELETE ON ${table}
     REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_note_stats()`,
];

/** `item_market_flush` as 1733443700000 wrote it, with `first` run before it takes its locks. */
const marketFlush = (first: string) => `
  CREATE OR REPLACE FUNCTION item_market_flush() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    urns text[];
  BEGIN${first}
    -- Takes every item this transaction noted; later firings in the same commit find none.
    WITH taken AS (DELETE FROM item_market_pending WHERE tx = txid_current() RETURNING item_urns)
    SELECT array_agg(DISTINCT u) INTO urns FROM taken, unnest(taken.item_urns) u;
    IF urns IS NOT NULL THEN
      PERFORM item_market_refresh(urns);
    END IF;
    RETURN NULL;
  END $$`;

export class StatsVersionsByTriggers1733640000000 implements MigrationInterface {
  name = 'StatsVersionsByTriggers1733640000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stats_pending (
        tx bigint NOT NULL DEFAULT txid_current(),
        users uuid[] NOT NULL,
        sellers uuid[] NOT NULL
      )`);
    await q.query(`CREATE INDEX stats_pending_tx_idx ON stats_pending (tx)`);
    await q.query(`
      CREATE FUNCTION stats_note(users uuid[], sellers uuid[]) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        users := array_remove(users, NULL);
        sellers := array_remove(sellers, NULL);
        IF cardinality(users) > 0 OR cardinality(sellers) > 0 THEN
          INSERT INTO stats_pending (users, sellers) VALUES (users, sellers);
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION stats_flush() RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        user_ids uuid[];
        seller_ids uuid[];
      BEGIN
        -- Takes every owner this transaction noted; later firings in the same commit find none.
        WITH taken AS (DELETE FROM stats_pending WHERE tx = txid_current() RETURNING users, sellers)
        SELECT ARRAY(SELECT DISTINCT u FROM taken, unnest(taken.users) u),
               ARRAY(SELECT DISTINCT s FROM taken, unnest(taken.sellers) s)
          INTO user_ids, seller_ids;
        IF cardinality(user_ids) > 0 THEN
          UPDATE users u SET account_stats_version = u.account_stats_version + 1
            FROM (SELECT id FROM users WHERE id = ANY(user_ids) ORDER BY id FOR NO KEY UPDATE) locked
           WHERE u.id = locked.id;
        END IF;
        IF cardinality(seller_ids) > 0 THEN
          UPDATE seller_accounts a SET stats_version = a.stats_version + 1
            FROM (SELECT user_id FROM seller_accounts WHERE user_id = ANY(seller_ids) ORDER BY user_id FOR NO KEY UPDATE) locked
           WHERE a.user_id = locked.user_id;
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION stats_pending_flush() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM stats_flush();
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER stats_pending_flush AFTER INSERT ON stats_pending
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stats_pending_flush()`);
    await q.query(marketFlush('\n    PERFORM stats_flush(); -- seller rows before market buckets, whichever flush fires first'));

    for (const counted of COUNTED) {
      await q.query(noteFunction(counted));
      for (const sql of statementTriggers(counted.table)) await q.query(sql);
    }
    // A seller suspended or reinstated: the row is being written anyway, so it bumps itself.
    await q.query(`
      CREATE FUNCTION seller_accounts_bump_stats() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.stats_version := NEW.stats_version + 1;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER seller_accounts_stats_status BEFORE UPDATE OF status ON seller_accounts
        FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION seller_accounts_bump_stats()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER seller_accounts_stats_status ON seller_accounts`);
    await q.query(`DROP FUNCTION seller_accounts_bump_stats()`);
    for (const { table } of COUNTED) {
      for (const op of ['insert', 'update', 'delete']) await q.query(`DROP TRIGGER ${table}_stats_${op} ON ${table}`);
      await q.query(`DROP FUNCTION ${table}_note_stats()`);
    }
    await q.query(marketFlush(''));
    await q.query(`DROP TABLE stats_pending`);
    await q.query(`DROP FUNCTION stats_pending_flush()`);
    await q.query(`DROP FUNCTION stats_flush()`);
    await q.query(`DROP FUNCTION stats_note(uuid[], uuid[])`);
  }
}

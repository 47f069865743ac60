import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `item_market`: each item's live-listing aggregates (price range, stock), kept by the database
 * in the transaction of every listing or seller-account write, so Item views read one row per
 * item instead of re-aggregating listings (docs/discover.md, "Market data").
 *
 * How: statement triggers on `listings` note the items a statement touched (only when a column
 * that decides liveness, price or stock changed) in `item_market_pending`; a deferred
 * constraint trigger on that table recomputes those items at commit. At commit each item is
 * first locked (transaction-scoped advisory locks on hash buckets of the URN, taken in one global
 * order, so two commits over overlapping items cannot deadlock), then recomputed from `listings` with a snapshot taken
 * after the lock: whichever commit comes last sees every earlier one.
 */
export class ItemMarket1733443700000 implements MigrationInterface {
  name = 'ItemMarket1733443700000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE item_market (
        item_urn text PRIMARY KEY,
        -- Live listings only (LIVE_LISTING_SQL); an item with none has no row.
        min_price integer NOT NULL,
        max_price integer NOT NULL,
        available integer NOT NULL,
        quantity integer NOT NULL
      )`);
    await q.query(`
      CREATE TABLE item_market_pending (
        tx bigint NOT NULL DEFAULT txid_current(),
        item_urns text[] NOT NULL
      )`);
    await q.query(`CREATE INDEX item_market_pending_tx_idx ON item_market_pending (tx)`);

    // The one definition of a live listing, as in src/services/listings/visibility.ts.
    await q.query(`
      CREATE FUNCTION item_market_refresh(urns text[]) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        k integer;
      BEGIN
        -- 128 lock buckets (namespaced by 1733443700): a commit holds at most 128 advisory locks
        -- however many items it touched (the shared lock table is small), and two commits whose
        -- items share a bucket only take turns for the few milliseconds of the recomputation.
        FOR k IN SELECT DISTINCT abs(hashtext(u) % 128) FROM unnest(urns) u ORDER BY 1 LOOP
          PERFORM pg_advisory_xact_lock(1733443700, k);
        END LOOP;
        -- A new statement: its snapshot includes every commit that held these locks before us.
        WITH stats AS (
          SELECT l.item_urn, min(l.price) AS min_price, max(l.price) AS max_price,
                 sum(l.quantity - l.reserved)::int AS available, sum(l.quantity)::int AS quantity
            FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
           WHERE l.item_urn = ANY(urns)
             AND l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved
             AND sa.status = 'ACTIVE' AND NOT sa.vacation
           GROUP BY l.item_urn),
        gone AS (
          DELETE FROM item_market m
           WHERE m.item_urn = ANY(urns) AND NOT EXISTS (SELECT 1 FROM stats s WHERE s.item_urn = m.item_urn))
        INSERT INTO item_market (item_urn, min_price, max_price, available, quantity)
        SELECT item_urn, min_price, max_price, available, quantity FROM stats
        ON CONFLICT (item_urn) DO UPDATE
          SET min_price = excluded.min_price, max_price = excluded.max_price,
              available = excluded.available, quantity = excluded.quantity
          WHERE (item_market.min_price, item_market.max_price, item_market.available, item_market.quantity)
                IS DISTINCT FROM (excluded.min_price, excluded.max_price, excluded.available, excluded.quantity);
      END $$`);

    await q.query(`
      CREATE FUNCTION item_market_flush() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        urns text[];
      BEGIN
        -- Takes every item this transaction noted; later firings in the same commit find none.
        WITH taken AS (DELETE FROM item_market_pending WHERE tx = txid_current() RETURNING item_urns)
        SELECT array_agg(DISTINCT u) INTO urns FROM taken, unnest(taken.item_urns) u;
        IF urns IS NOT NULL THEN
          PERFORM item_market_refresh(urns);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER item_market_pending_flush AFTER INSERT ON item_market_pending
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION item_market_flush()`);

    await q.query(`
      CREATE FUNCTION listings_note_market() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        urns text[];
      BEGIN
        IF TG_OP = 'INSERT' THEN
          SELECT array_agg(DISTINCT item_urn) INTO urns FROM new_rows;
        ELSIF TG_OP = 'DELETE' THEN
          SELECT array_agg(DISTINCT item_urn) INTO urns FROM old_rows;
        ELSE
          -- Edits of text, photos or grading details leave the market as it was.
          SELECT array_agg(DISTINCT u) INTO urns
            FROM new_rows n JOIN old_rows o ON o.id = n.id,
                 unnest(ARRAY[n.item_urn, o.item_urn]) u
           WHERE (n.item_urn, n.seller_id, n.price, n.quantity, n.reserved, n.hidden, n.valid, n.deleted_at)
                 IS DISTINCT FROM (o.item_urn, o.seller_id, o.price, o.quantity, o.reserved, o.hidden, o.valid, o.deleted_at);
        END IF;
        IF urns IS NOT NULL THEN
          INSERT INTO item_market_pending (item_urns) VALUES (urns);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER listings_market_insert AFTER INSERT ON listings
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION listings_note_market()`);
    await q.query(`
      CREATE TRIGGER listings_market_update AFTER UPDATE ON listings
        REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION listings_note_market()`);
    await q.query(`
      CREATE TRIGGER listings_market_delete AFTER DELETE ON listings
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION listings_note_market()`);

    // A seller going on or off vacation (or being suspended) changes every item they list.
    await q.query(`
      CREATE FUNCTION seller_accounts_note_market() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        urns text[];
      BEGIN
        SELECT array_agg(DISTINCT item_urn) INTO urns FROM listings WHERE seller_id = OLD.user_id AND deleted_at IS NULL;
        IF urns IS NOT NULL THEN
          INSERT INTO item_market_pending (item_urns) VALUES (urns);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER seller_accounts_market_update AFTER UPDATE OF status, vacation ON seller_accounts
        FOR EACH ROW WHEN ((OLD.status, OLD.vacation) IS DISTINCT FROM (NEW.status, NEW.vacation))
        EXECUTE FUNCTION seller_accounts_note_market()`);
    await q.query(`
      CREATE TRIGGER seller_accounts_market_delete AFTER DELETE ON seller_accounts
        FOR EACH ROW EXECUTE FUNCTION seller_accounts_note_market()`);

    await q.query(`
      INSERT INTO item_market (item_urn, min_price, max_price, available, quantity)
      SELECT l.item_urn, min(l.price), max(l.price), sum(l.quantity - l.reserved)::int, sum(l.quantity)::int
        FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
       WHERE l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved
         AND sa.status = 'ACTIVE' AND NOT sa.vacation
       GROUP BY l.item_urn`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER seller_accounts_market_delete ON seller_accounts`);
    await q.query(`DROP TRIGGER seller_accounts_market_update ON seller_accounts`);
    await q.query(`DROP FUNCTION seller_accounts_note_market()`);
    await q.query(`DROP TRIGGER listings_market_delete ON listings`);
    await q.query(`DROP TRIGGER listings_market_update ON listings`);
    await q.query(`DROP TRIGGER listings_market_insert ON listings`);
    await q.query(`DROP FUNCTION listings_note_market()`);
    await q.query(`DROP TABLE item_market_pending`);
    await q.query(`DROP FUNCTION item_market_flush()`);
    await q.query(`DROP FUNCTION item_market_refresh(text[])`);
    await q.query(`DROP TABLE item_market`);
  }
}

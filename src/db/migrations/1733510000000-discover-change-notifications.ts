import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every write that changes what Discover shows for an item sends the item's URN, delivered at
 * commit (and not at all on rollback): on `discover_catalog` when the catalog item itself
 * changed, on `discover_items` for everything else. API processes
 * LISTEN and drop what they keep in memory for those items (src/services/catalog/discover-changes.ts),
 * so their cached answers follow the database within one notification instead of a TTL.
 *
 * Notified: listing rows (any column: hits show comments, photos and grading too), listing
 * photos, market rows (`item_market`, whatever changed them), a seller's status or vacation
 * (their listings appear or vanish), catalog items, and the sets, series and games an item view
 * names (every item under them). Not notified, and bounded by DISCOVER_CACHE_MS instead: a
 * seller's public profile figures on listing hits (docs/discover.md, "Caching").
 */
const NOTIFY = `
  CREATE FUNCTION discover_notify(channel text, urns text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    chunk text := '';
    u text;
  BEGIN
    -- A payload must stay under 8000 bytes: long lists go out in several. URNs never hold commas.
    FOR u IN SELECT DISTINCT x FROM unnest(urns) x WHERE x IS NOT NULL LOOP
      IF octet_length(chunk) + octet_length(u) + 1 > 7900 THEN
        PERFORM pg_notify(channel, chunk);
        chunk := '';
      END IF;
      chunk := CASE WHEN chunk = '' THEN u ELSE chunk || ',' || u END;
    END LOOP;
    IF chunk <> '' THEN
      PERFORM pg_notify(channel, chunk);
    END IF;
  END $$`;

/** A statement-level trigger function notifying the URNs `column` holds in the transition tables. */
const rowsFunction = (name: string, column: string, channel: string) => `
  CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      PERFORM discover_notify('${channel}', ARRAY(SELECT ${column} FROM new_rows));
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      PERFORM discover_notify('${channel}', ARRAY(SELECT ${column} FROM old_rows));
    END IF;
    RETURN NULL;
  END $$`;

/** INSERT, UPDATE and DELETE statement triggers on `table`, each with the transition tables it has. */
const statementTriggers = (table: string, fn: string) => [
  `CREATE TRIGGER ${table}_discover_insert AFTER INSERT ON ${table}
     REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  `CREATE TRIGGER ${table}_discover_update AFTER UPDATE ON ${table}
     REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  `CREATE TRIGGER ${table}_discover_delete AFTER DELETE ON ${table}
     REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
];

const TABLES: Array<[table: string, fn: string, column: string, channel: string]> = [
  ['listings', 'listings_discover_notify', 'item_urn', 'discover_items'],
  ['item_market', 'item_market_discover_notify', 'item_urn', 'discover_items'],
  // A photo names its listing; the listing names the item (a deleted listing's photos go with it).
  [
    'listing_attachments',
    'listing_attachments_discover_notify',
    '(SELECT l.item_urn FROM listings l WHERE l.id = listing_id)',
    'discover_items',
  ],
  ['catalog_items', 'catalog_items_discover_notify', 'urn', 'discover_catalog'],
];

/** Item views carry their set's, series' and game's names and details: an update of one is a change of every item under it. */
const PARENTS: Array<[table: string, itemColumn: string]> = [
  ['catalog_sets', 'set_urn'],
  ['catalog_series', 'series_urn'],
  ['catalog_games', 'game_urn'],
];

export class DiscoverChangeNotifications1733510000000 implements MigrationInterface {
  name = 'DiscoverChangeNotifications1733510000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(NOTIFY);
    for (const [table, fn, column, channel] of TABLES) {
      await q.query(rowsFunction(fn, column, channel));
      for (const sql of statementTriggers(table, fn)) await q.query(sql);
    }
    // Items keep their parent (foreign keys), so only an update can change what they show.
    for (const [table, itemColumn] of PARENTS) {
      await q.query(`
        CREATE FUNCTION ${table}_discover_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM discover_notify('discover_catalog',
            ARRAY(SELECT i.urn FROM catalog_items i WHERE i.${itemColumn} IN (SELECT urn FROM new_rows)));
          RETURN NULL;
        END $$`);
      await q.query(`
        CREATE TRIGGER ${table}_discover_update AFTER UPDATE ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_discover_notify()`);
    }
    // A seller going on or off vacation, or suspended or reinstated: their listings appear or vanish.
    await q.query(`
      CREATE FUNCTION seller_accounts_discover_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM discover_notify('discover_items', ARRAY(SELECT DISTINCT item_urn FROM listings WHERE seller_id = NEW.user_id AND deleted_at IS NULL));
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER seller_accounts_discover_update AFTER UPDATE OF status, vacation ON seller_accounts
        FOR EACH ROW WHEN ((OLD.status, OLD.vacation) IS DISTINCT FROM (NEW.status, NEW.vacation))
        EXECUTE FUNCTION seller_accounts_discover_notify()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER seller_accounts_discover_update ON seller_accounts`);
    await q.query(`DROP FUNCTION seller_accounts_discover_notify()`);
    for (const [table] of PARENTS) {
      await q.query(`DROP TRIGGER ${table}_discover_update ON ${table}`);
      await q.query(`DROP FUNCTION ${table}_discover_notify()`);
    }
    for (const [table, fn] of TABLES) {
      for (const op of ['insert', 'update', 'delete']) await q.query(`DROP TRIGGER ${table}_discover_${op} ON ${table}`);
      await q.query(`DROP FUNCTION ${fn}()`);
    }
    await q.query(`DROP FUNCTION discover_notify(text, text[])`);
  }
}

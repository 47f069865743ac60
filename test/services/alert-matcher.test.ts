import type { DataSource } from 'typeorm';
import { AlertMatcher, FIRED_ALERTS } from '../../src/services/alerts/matcher';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog, type FixtureItem } from '../support/fixtures';
import { createListing } from '../support/listings';

let api: TestApi;
let db: DataSource;
let items: FixtureItem[];
let sellerId: string;
let userIds: string[];

/** 200 items, and 20,000 alerts over them: by item or by card name, thresholds 1–2000 pence. */
beforeAll(async () => {
  api = await startTestApi();
  db = api.database.db;
  ({ items } = await seedCatalog(db, { names: Array.from({ length: 200 }, (_, i) => `Card ${i}`) }));
  sellerId = (await registerSeller(api)).id;
  userIds = [];
  for (let i = 0; i < 10; i++) userIds.push((await registerUser(api)).id);
  await db.query(
    `INSERT INTO price_alerts (id, user_id, item_urn, game_urn, card_name, max_price)
     SELECT gen_random_uuid(), ($1::uuid[])[1 + n % 10],
            CASE WHEN n % 4 <> 0 THEN ($2::text[])[1 + n % 200] END,
            CASE WHEN n % 4 = 0 THEN 'pokemon' END,
            CASE WHEN n % 4 = 0 THEN 'card ' || (n % 200) END,
            1 + (n * 7919) % 2000
       FROM generate_series(1, 20000) AS n`,
    [userIds, items.map((i) => i.urn)],
  );
  await db.query(`ANALYZE price_alerts`);
}, 60_000);
afterAll(() => api.close());

/** Every node of a JSON plan, flattened. */
function nodes(plan: Record<string, unknown>): Array<Record<string, unknown>> {
  return [plan, ...((plan.Plans as Array<Record<string, unknown>> | undefined) ?? []).flatMap(nodes)];
}

describe('AlertMatcher (on Postgres)', () => {
  it('finds the alerts a listing fires through the indexes, reading only the alerts at or above its price', async () => {
    const listing = await insertListing(db, { sellerId, itemUrn: items[42]!.urn, price: 1990 });
    const [row]: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> = await db.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${FIRED_ALERTS}`,
      [[listing.id]],
    );
    const plan = nodes(row!['QUERY PLAN'][0]!.Plan);
    const onAlerts = plan.filter((n) => n['Relation Name'] === 'price_alerts');
    // An index scan, or a bitmap heap scan over a bitmap index scan: either way through the index.
    const indexes = plan.map((n) => n['Index Name']).filter((name) => typeof name === 'string' && name.startsWith('price_alerts'));
    expect(indexes.sort()).toEqual(['price_alerts_card_idx', 'price_alerts_item_idx']);
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'price_alerts')).toBe(false);
    // Of the 100 alerts on this card (by item or by name), only those with a threshold of 1990 or more are read.
    const [{ expected }]: [{ expected: number }] = await db.query(
      `SELECT count(*)::int AS expected FROM price_alerts
        WHERE (item_urn = $1 OR (game_urn = 'pokemon' AND card_name = 'card 42')) AND max_price >= 1990`,
      [items[42]!.urn],
    );
    const read = onAlerts.reduce((sum, n) => sum + (n['Actual Rows'] as number), 0);
    expect(read).toBe(expected);
    expect(expected).toBeLessThan(20);
    const fired = await db.query(FIRED_ALERTS, [[listing.id]]);
    expect(fired).toHaveLength(expected);
  });

  it('matches each event once across concurrent matchers, and each alert once per listing and price', async () => {
    const created = [];
    for (let i = 0; i < 30; i++) created.push(await createListing(db, sellerId, { urn: items[i]!.urn, price: 1000 + i }));
    const [{ want }]: [{ want: number }] = await db.query(
      `SELECT count(*)::int AS want FROM price_alerts a JOIN listings l ON l.id = ANY($1::uuid[])
        JOIN catalog_items ci ON ci.urn = l.item_urn
       WHERE (a.item_urn = l.item_urn OR (a.game_urn = ci.game_urn AND a.card_name = lower(ci.name))) AND a.max_price >= l.price`,
      [created.map((c) => c.data.listingId)],
    );
    const matchers = Array.from({ length: 3 }, () => new AlertMatcher(db, { batchSize: 4 }));
    const counts = await Promise.all(matchers.map((m) => m.drain()));
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30);
    const [{ pending }]: [{ pending: number }] = await db.query(
      `SELECT count(*)::int AS pending FROM outbox_events WHERE alerts_matched_at IS NULL`,
    );
    expect(pending).toBe(0);
    const [{ got, distinct }]: [{ got: number; distinct: number }] = await db.query(
      `SELECT count(*)::int AS got, count(DISTINCT (alert_id, listing_id, price))::int AS distinct
         FROM notifications WHERE listing_id = ANY($1::uuid[])`,
      [created.map((c) => c.data.listingId)],
    );
    expect(got).toBe(want);
    expect(distinct).toBe(want);
    // The database made the ids (uuid_v7()): version 7, stamped with the time of writing, as newId() would.
    const ids: Array<{ id: string }> = await db.query(`SELECT id FROM notifications WHERE listing_id = ANY($1::uuid[])`, [
      created.map((c) => c.data.listingId),
    ]);
    for (const { id } of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Math.abs(parseInt(id.replace(/-/g, '').slice(0, 12), 16) - Date.now())).toBeLessThan(60_000);
    }
  });
});

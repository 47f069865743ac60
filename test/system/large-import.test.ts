import { registerSeller } from '../support/api';
import { seedCatalog, type FixtureItem } from '../support/fixtures';
import { IMPORT_HEADER as HEADER, importCsv } from '../support/imports';
import { startStack, type TestStack } from '../support/stack';

/**
 * A large listing import on the whole system (API → Temporal dev server → worker → Postgres):
 * 10,000 rows in batches of 500. Moved from test/e2e/listing-import.test.ts, which keeps the
 * journey with good and bad rows.
 */
let stack: TestStack;
let items: FixtureItem[];
beforeAll(async () => {
  stack = await startStack({ IMPORT_BATCH_SIZE: '500' });
  ({ items } = await seedCatalog(stack.api.database.db));
}, 60_000);
afterAll(() => stack?.stop());

describe('listing import at size', () => {
  it('imports 10,000 rows', async () => {
    const { api } = stack;
    const seller = await registerSeller(api);
    const rows = Array.from(
      { length: 10_000 },
      (_, i) => `${items[i % items.length]!.urn},NEAR_MINT,en,${100 + i},${1 + (i % 5)},ref-${i}`,
    );
    const done = await importCsv(stack, seller.bearer, [HEADER, ...rows].join('\n'));
    expect(done).toMatchObject({ status: 'COMPLETED', totalRows: 10_000, createdCount: 10_000, errorCount: 0 });
    const [{ listings, events }] = await api.database.db.query(
      `SELECT (SELECT count(*)::int FROM listings WHERE seller_id = $1) AS listings,
              (SELECT count(*)::int FROM outbox_events WHERE seller_id = $1 AND type = 'LISTING_CREATED') AS events`,
      [seller.id],
    );
    expect({ listings, events }).toEqual({ listings: 10_000, events: 10_000 });
  }, 180_000);
});

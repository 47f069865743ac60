import { newId } from '../../src/ids';
import { ListingImportRuns } from '../../src/services/imports/import-runs';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog, type FixtureItem } from '../support/fixtures';

let api: TestApi;
let items: FixtureItem[];
beforeAll(async () => {
  api = await startTestApi();
  ({ items } = await seedCatalog(api.database.db));
});
afterAll(() => api.close());

async function storeImport(seller: TestUser, rows: string[]): Promise<string> {
  const id = newId();
  const csv = ['urn,condition,language,price,quantity', ...rows].join('\n');
  await api.database.db.query(`INSERT INTO listing_imports (id, seller_id, csv) VALUES ($1, $2, $3)`, [id, seller.id, csv]);
  return id;
}

const listingsOf = async (importId: string) =>
  (await api.database.db.query(`SELECT price FROM listings WHERE import_id = $1 ORDER BY import_row`, [importId])).map(
    (r: { price: number }) => r.price,
  );

describe('ListingImportRuns (on Postgres)', () => {
  it('keeps the rows of interleaved imports apart, although it keeps one parsed file at a time', async () => {
    const seller = await registerSeller(api);
    const a = await storeImport(seller, [`${items[0]!.urn},MINT,en,101,1`, `${items[1]!.urn},MINT,en,102,1`]);
    const b = await storeImport(seller, [`${items[2]!.urn},MINT,en,201,1`, `${items[0]!.urn},MINT,en,202,1`]);
    const runs = new ListingImportRuns(api.database.db, 1);

    expect(await runs.start(a)).toEqual({ status: 'RUNNING', totalRows: 2, processedRows: 0, batchSize: 1 });
    await runs.importBatch(a, 0, 1);
    // Another import's batch in between: the next batch of `a` must read `a`'s file again.
    expect((await runs.start(b)).totalRows).toBe(2);
    await runs.importBatch(b, 0, 2);
    await runs.importBatch(a, 1, 1);

    expect(await runs.finish(a)).toEqual({ status: 'COMPLETED', totalRows: 2, createdCount: 2, errorCount: 0 });
    expect(await runs.finish(b)).toEqual({ status: 'COMPLETED', totalRows: 2, createdCount: 2, errorCount: 0 });
    expect(await listingsOf(a)).toEqual([101, 102]);
    expect(await listingsOf(b)).toEqual([201, 202]);
  });
});

import { createImportActivities } from '../../activities/imports';
import { ListingImportRuns } from '../../src/services/imports/import-runs';
import { newId } from '../../src/ids';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog, type FixtureItem } from '../support/fixtures';
import { listingsModule } from '../../src/modules/listings';
import { servicesOf } from '../../src/modules';

let api: TestApi;
let items: FixtureItem[];
beforeAll(async () => {
  api = await startTestApi();
  ({ items } = await seedCatalog(api.database.db));
});
afterAll(() => api.close());

async function storeImport(seller: TestUser, csv: string): Promise<string> {
  const id = newId();
  await api.database.db.query(`INSERT INTO listing_imports (id, seller_id, csv) VALUES ($1, $2, $3)`, [id, seller.id, csv]);
  return id;
}

const counts = async (importId: string, sellerId: string) => {
  const [row] = await api.database.db.query(
    `SELECT (SELECT count(*)::int FROM listings WHERE import_id = $1) AS listings,
            (SELECT count(*)::int FROM outbox_events WHERE seller_id = $2 AND type = 'LISTING_CREATED') AS events,
            (SELECT count(*)::int FROM listing_import_errors WHERE import_id = $1) AS errors`,
    [importId, sellerId],
  );
  return row as { listings: number; events: number; errors: number };
};

describe('import activities (on Postgres)', () => {
  it('imports the offer settings columns onto the listings', async () => {
    const seller = await registerSeller(api);
    const csv = [
      'urn,condition,language,price,quantity,offersEnabled,offersAutoAcceptAt,offersAutoDeclineBelow',
      `${items[0]!.urn},NEAR_MINT,en,2500,1,true,2200,1500`,
      `${items[1]!.urn},MINT,en,900,2,,,`,
      `${items[2]!.urn},MINT,en,900,2,true,800,850`,
    ].join('\n');
    const importId = await storeImport(seller, csv);
    const activities = createImportActivities({ importRuns: new ListingImportRuns(api.database.db, 10) });
    await activities.startImport(importId);
    await activities.importBatch(importId, 0, 10);
    expect(await activities.finishImport(importId)).toEqual({ status: 'COMPLETED', totalRows: 3, createdCount: 2, errorCount: 1 });
    const rows = await api.database.db.query(
      `SELECT item_urn, offers_enabled, offer_auto_accept_at, offer_auto_decline_below FROM listings WHERE import_id = $1 ORDER BY import_row`,
      [importId],
    );
    expect(rows).toEqual([
      { item_urn: items[0]!.urn, offers_enabled: true, offer_auto_accept_at: 2200, offer_auto_decline_below: 1500 },
      { item_urn: items[1]!.urn, offers_enabled: false, offer_auto_accept_at: null, offer_auto_decline_below: null },
    ]);
    const errors = await servicesOf(api.services, listingsModule).imports.errors(seller.id, importId, 1, 50);
    expect(errors.errors.map((e) => [e.row, e.column])).toEqual([[4, 'offersAutoDeclineBelow']]);
  });

  it('lands the good rows, keeps precise row errors, and never does a batch twice', async () => {
    const seller = await registerSeller(api);
    const csv = [
      'urn,condition,language,price,quantity,notes,hidden',
      `${items[0]!.urn},NEAR_MINT,en,1250,2,SKU-1,false`,
      `${items[1]!.urn},SHINY,en,12.50,1,,`,
      `${items[2]!.urn},MINT,de,300,4,,true`,
      `,MINT,en,300,-1,,`,
      `pokemon/base/none/1,MINT,en,100,1,,`,
      `${items[0]!.urn},MINT,en,100,1,,false,stray`,
    ].join('\n');
    const importId = await storeImport(seller, csv);
    const activities = createImportActivities({ importRuns: new ListingImportRuns(api.database.db, 2) });

    const plan = await activities.startImport(importId);
    expect(plan).toEqual({ status: 'RUNNING', totalRows: 6, processedRows: 0, batchSize: 2 });
    for (let offset = 0; offset < 6; offset += 2) await activities.importBatch(importId, offset, 2);
    // A retried batch (e.g. the activity timed out after committing) changes nothing.
    await activities.importBatch(importId, 0, 2);
    await activities.importBatch(importId, 2, 2);
    const summary = await activities.finishImport(importId);
    expect(summary).toEqual({ status: 'COMPLETED', totalRows: 6, createdCount: 3, errorCount: 3 });
    expect(await counts(importId, seller.id)).toEqual({ listings: 3, events: 3, errors: 5 });

    const errors = await servicesOf(api.services, listingsModule).imports.errors(seller.id, importId, 1, 50);
    expect(errors.total).toBe(5);
    expect(errors.errors.map((e) => [e.row, e.column])).toEqual([
      [3, 'condition'],
      [3, 'price'],
      [5, 'quantity'],
      [5, 'urn'],
      [7, '(row)'],
    ]);
    expect(errors.errors[4]!.message).toBe('the row has 8 cells but the header has 7 columns');
    expect(errors.errors[0]!.message).toContain('"condition" must be one of');
    const [hidden] = await api.database.db.query(`SELECT hidden, notes, valid FROM listings WHERE import_id = $1 AND import_row = 4`, [
      importId,
    ]);
    expect(hidden).toEqual({ hidden: true, notes: null, valid: true });
    const [unknownItem] = await api.database.db.query(`SELECT valid FROM listings WHERE import_id = $1 AND import_row = 6`, [importId]);
    expect(unknownItem.valid).toBe(false);

    // Re-running the finished import changes nothing.
    expect((await activities.startImport(importId)).status).toBe('COMPLETED');
    expect(await activities.finishImport(importId)).toEqual(summary);
    expect(await counts(importId, seller.id)).toEqual({ listings: 3, events: 3, errors: 5 });
  });

  it('fails an import whose file cannot be read, once', async () => {
    const seller = await registerSeller(api);
    const importId = await storeImport(seller, 'urn,condition,language,price,quantity\n"unterminated,MINT,en,1,1\n');
    const activities = createImportActivities({ importRuns: new ListingImportRuns(api.database.db, 10) });
    expect((await activities.startImport(importId)).status).toBe('FAILED');
    const view = await servicesOf(api.services, listingsModule).imports.get(seller.id, importId);
    expect(view.failure).toMatch(/cannot be read/);
    expect((await activities.finishImport(importId)).status).toBe('FAILED');
  });
});

import { listingsWorkflowIds } from '../../src/modules/listings';
import { listingImportWorkflow } from '../../workflows';
import { registerSeller } from '../support/api';
import { apiClient, dataOf } from '../support/client';
import { IMPORT_HEADER as HEADER, importCsv } from '../support/imports';
import { seedCatalog, type FixtureItem } from '../support/fixtures';
import { startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let items: FixtureItem[];
beforeAll(async () => {
  stack = await startStack({ IMPORT_BATCH_SIZE: '500' });
  ({ items } = await seedCatalog(stack.api.database.db));
}, 60_000);
afterAll(() => stack?.stop());

describe('listing import, end to end (API → Temporal dev server → worker → Postgres)', () => {
  it('lands the good rows and reports each bad one by row and column', async () => {
    const { api, env } = stack;
    const seller = await registerSeller(api);
    const csv = [
      HEADER,
      `${items[0]!.urn},NEAR_MINT,en,1000,1,r1`,
      `${items[1]!.urn},NEAR_MINT,en,free,1,r2`,
      `${items[2]!.urn},GOOD,fr,250,3,r3`,
      `${items[0]!.urn},GOOD,french,250,3,${'x'.repeat(300)}`,
    ].join('\n');
    const done = await importCsv(stack, seller.bearer, csv);
    expect(done).toMatchObject({ status: 'COMPLETED', totalRows: 4, processedRows: 4, createdCount: 2, errorCount: 2 });

    const client = apiClient(api, seller.bearer);
    const errors = await dataOf(client.GET('/seller/imports/{id}/errors', { params: { path: { id: done.id } } }));
    expect(errors).toMatchObject({ total: 3, page: 1, size: 50 });
    expect(errors.items.map((e) => `${e.row}:${e.column}`)).toEqual(['3:price', '5:language', '5:reference']);
    const search = await dataOf(client.POST('/seller/listings/search', { body: {} }));
    expect(search.hits.map((h) => h.reference).sort()).toEqual(['r1', 'r3']);

    // Re-running the finished import's workflow changes nothing.
    const again = await env.client.workflow.execute(listingImportWorkflow, {
      workflowId: listingsWorkflowIds.import(done.id),
      taskQueue: api.config.temporal.taskQueue,
      args: [{ importId: done.id }],
    });
    expect(again).toMatchObject({ status: 'COMPLETED', createdCount: 2, errorCount: 2 });
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM listings WHERE seller_id = $1`, [seller.id]);
    expect(count).toBe(2);
  });
});

import { newId } from '../../src/ids';
import { registerSeller, startTestApi, type TestApi } from '../support/api';

// No Temporal here: what the API checks before scheduling, and what it does when it cannot.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { IMPORT_MAX_BYTES: '2048', IMPORT_MAX_ROWS: '3' } });
});
afterAll(() => api.close());

const post = (bearer: { Authorization: string }, csv: string, type = 'text/csv') =>
  api.http.post('/seller/imports').set(bearer).set('Content-Type', type).send(csv);

describe('POST /seller/imports (before the workflow)', () => {
  it('refuses a header with missing or unknown columns, storing nothing', async () => {
    const seller = await registerSeller(api);
    const res = await post(seller.bearer, 'urn,condition,price,colour\nx,MINT,1,red\n');
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/import-csv-invalid');
    expect(res.body.detail).toContain('missing required column(s): language, quantity');
    expect(res.body.detail).toContain('unknown column(s): colour');
    const rows = await api.database.db.query(`SELECT 1 FROM listing_imports WHERE seller_id = $1`, [seller.id]);
    expect(rows).toHaveLength(0);
  });

  it('refuses a file with NUL in a cell as a 400 naming the line, storing nothing (the text rule, for raw bodies too)', async () => {
    const seller = await registerSeller(api);
    const res = await post(seller.bearer, 'urn,condition,language,price,quantity\nx,MINT,en,1,1\npokemon/a\u0000b,MINT,en,1,1\n');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.type).toBe('/problems/validation-failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ in: 'body', field: 'body', message: expect.stringContaining('line 3') })]);
    const rows = await api.database.db.query(`SELECT 1 FROM listing_imports WHERE seller_id = $1`, [seller.id]);
    expect(rows).toHaveLength(0);
  });

  it('refuses other media types and files over the cap', async () => {
    const seller = await registerSeller(api);
    await post(seller.bearer, JSON.stringify({ csv: 'urn' }), 'application/json').expect(415);
    await post(seller.bearer, `urn,condition,language,price,quantity\n${'x,MINT,en,1,1\n'.repeat(300)}`).expect(413);
  });

  it('refuses more lines after the header than IMPORT_MAX_ROWS, storing nothing; empty lines do not count', async () => {
    const seller = await registerSeller(api);
    const header = 'urn,condition,language,price,quantity\r\n';
    const res = await post(seller.bearer, `${header}${',,,,\r\n'.repeat(4)}`);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/import-too-many-rows');
    expect(res.body.detail).toContain('more than 3 lines after the header');
    const rows = await api.database.db.query(`SELECT 1 FROM listing_imports WHERE seller_id = $1`, [seller.id]);
    expect(rows).toHaveLength(0);

    const spaced = await post(seller.bearer, `${header}\r\n${'x,MINT,en,1,1\n\n'.repeat(3)}\r\n`);
    expect(spaced.status).toBe(202);
  });

  it('accepts the import while Temporal is unreachable: it stays PENDING and its workflow waits in the start outbox', async () => {
    const seller = await registerSeller(api);
    const res = await post(seller.bearer, 'urn,condition,language,price,quantity\nx,MINT,en,1,1\n');
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('PENDING');
    const intents = await api.database.db.query(`SELECT workflow_type, args, started_at FROM workflow_starts WHERE workflow_id = $1`, [
      `import:${res.body.id}`,
    ]);
    expect(intents).toEqual([{ workflow_type: 'listingImportWorkflow', args: [{ importId: res.body.id }], started_at: null }]);
  });

  it('shows an import only to its seller', async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const [row] = await api.database.db.query(`INSERT INTO listing_imports (id, seller_id, csv) VALUES ($1, $2, '') RETURNING id`, [
      newId(),
      seller.id,
    ]);
    await api.http.get(`/seller/imports/${row.id}`).set(seller.bearer).expect(200);
    await api.http.get(`/seller/imports/${row.id}`).set(other.bearer).expect(404);
    await api.http.get(`/seller/imports/${row.id}/errors`).set(other.bearer).expect(404);
  });
});

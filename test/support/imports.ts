import { apiClient, dataOf, rawText } from './client';
import { eventually, type TestStack } from './stack';

/** The header of a listing import CSV (docs/sellers-operators.md, "Imports"). */
export const IMPORT_HEADER = 'urn,condition,language,price,quantity,reference';

/** Posts a CSV import as the seller and waits for the worker to finish it; the final import record. */
export async function importCsv(stack: TestStack, bearer: { Authorization: string }, csv: string) {
  const client = apiClient(stack.api, bearer);
  const accepted = await dataOf(client.POST('/seller/imports', { body: csv, ...rawText('text/csv') }), 202);
  expect(accepted.status).toBe('PENDING');
  return eventually(async () => {
    const read = await dataOf(client.GET('/seller/imports/{id}', { params: { path: { id: accepted.id } } }));
    return read.status === 'COMPLETED' || read.status === 'FAILED' ? read : null;
  }, 120_000);
}

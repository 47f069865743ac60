import misspellings from '../../data/search/misspellings.json';
import { startTestApi, type TestApi } from '../support/api';
import { importSeed } from '../support/catalog';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  await importSeed(api.database.db);
});
afterAll(() => api.close());

describe('GET /search with misspelt card names (demo catalog)', () => {
  it(`puts the intended card first for at least 90 % of ${misspellings.length} real misspellings`, async () => {
    const misses: string[] = [];
    for (const [typo, expected] of misspellings as Array<[string, string]>) {
      const res = await api.http.get('/search').query({ q: typo, size: 1 }).expect(200);
      const top = res.body.items[0]?.name as string | undefined;
      if (top !== expected) misses.push(`${typo} → ${top ?? 'nothing'} (wanted ${expected})`);
    }
    const hitRate = (misspellings.length - misses.length) / misspellings.length;
    // The rate and the misses are part of what this test reports (docs/discover.md quotes them).
    console.log(
      `misspelling hit rate ${(hitRate * 100).toFixed(1)} % (${misspellings.length - misses.length}/${misspellings.length}); misses: ${misses.join('; ') || 'none'}`,
    );
    expect(misspellings.length).toBeGreaterThanOrEqual(50);
    expect({ hitRate: hitRate >= 0.9, misses }).toMatchObject({ hitRate: true });
  });

  it('finds a card by a misspelling of a name it was given after import', async () => {
    await api.database.db.query(`UPDATE catalog_items SET name = 'Pikachu Libre' WHERE urn = 'pokemon/base/base1/58'`);
    const res = await api.http.get('/search').query({ q: 'pikachu librre', size: 1 }).expect(200);
    expect(res.body.items.map((i: { urn: string }) => i.urn)).toEqual(['pokemon/base/base1/58']);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTestApi, type TestApi } from '../support/api';
import { importLines, importSeed } from '../support/catalog';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const seedLines = (file: string) => readFileSync(path.join(__dirname, '../../data/catalog', file), 'utf8').split('\n');
const count = async (table: string) => Number((await api.database.db.query(`SELECT count(*) AS n FROM ${table}`))[0].n);

/** A valid item line of a set nobody else uses, so tests do not collide. */
const itemLine = (set: string, number: string, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    urn: `pokemon/test/${set}/${number}`,
    slug: `card-${set}-${number}`,
    type: 'card',
    game: 'Pokémon',
    title: `Card (${set} ${number}/10)`,
    name: 'Card',
    rarity: 'Common',
    number,
    set: {
      name: set,
      urn: `pokemon/test/${set}`,
      counts: { printed: 10, total: 10 },
      references: [],
      size: 10,
      symbol: { url: null },
      released: '2020-01-01',
    },
    series: { name: 'Test', urn: 'pokemon/test' },
    images: [],
    alternatives: [],
    metadata: [],
    description: '',
    referencePrice: null,
    ...overrides,
  });

describe('catalog import', () => {
  it('imports the demo seed into the hierarchy, and a second import changes nothing', async () => {
    await importSeed(api.database.db);
    expect(await count('catalog_items')).toBeGreaterThanOrEqual(644);
    const [game] = await api.database.db.query(`SELECT name FROM catalog_games WHERE urn = 'pokemon'`);
    expect(game.name).toBe('Pokémon');
    // Sets without items (from sets.ndjson) are there too.
    const [fossil] = await api.database.db.query(`SELECT name, series_urn FROM catalog_sets WHERE urn = 'pokemon/base/base3'`);
    expect(fossil).toEqual({ name: 'Fossil', series_urn: 'pokemon/base' });

    const again = await importLines(api.database.db, seedLines('items.ndjson'));
    expect(again.items).toEqual({ inserted: 0, updated: 0, unchanged: 644 });
    expect(again.skipped).toEqual([]);
  });

  it('updates a changed item in place', async () => {
    await importLines(api.database.db, [itemLine('upd1', '1')]);
    const summary = await importLines(api.database.db, [itemLine('upd1', '1', { name: 'Renamed', title: 'Renamed (upd1 1/10)' })]);
    expect(summary.items).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    const [row] = await api.database.db.query(`SELECT name FROM catalog_items WHERE urn = 'pokemon/test/upd1/1'`);
    expect(row.name).toBe('Renamed');
  });

  it('reports bad lines by number with every reason, and imports the good lines around them', async () => {
    const summary = await importLines(api.database.db, [
      itemLine('bad1', '1'),
      'not json',
      itemLine('bad1', '2', { urn: 'pokemon/test/bad1/' }),
      '',
      itemLine('bad1', '3', { urn: 'pokemon/test/other/3' }),
      JSON.stringify({ name: 'No urn', series: { name: 'Test', urn: 'pokemon/test' } }),
      itemLine('bad1', '4', { title: undefined, name: 42 }),
      itemLine('bad1', '5'),
      itemLine('bad1', '6', { metadata: [{ name: 'hp', value: '80', detail: [{ nested: true }] }] }),
      itemLine('bad1', '7', { metadata: [{ name: 'hp', value: '80', detail: ['first edition'] }] }),
    ]);
    expect(summary.skipped.map((s) => s.line)).toEqual([2, 3, 5, 6, 7, 9]);
    expect(summary.skipped[0]!.reason).toBe('not valid JSON');
    expect(summary.skipped[1]!.reason).toMatch(/must not end with "\/"/);
    expect(summary.skipped[2]!.reason).toMatch(/is not an item of set/);
    expect(summary.skipped[3]!.reason).toMatch(/"urn" is required/);
    expect(summary.skipped[4]!.reason).toMatch(/"title" is required.*"name" must be a string/);
    // Metadata details are strings (the published Item schema says so).
    expect(summary.skipped[5]!.reason).toMatch(/"metadata\[0\]\.detail\[0\]" must be a string/);
    const urns = await api.database.db.query(`SELECT urn FROM catalog_items WHERE set_urn = 'pokemon/test/bad1' ORDER BY urn`);
    expect(urns.map((r: { urn: string }) => r.urn)).toEqual(['pokemon/test/bad1/1', 'pokemon/test/bad1/5', 'pokemon/test/bad1/7']);
  });

  it('isolates a line the database refuses (slug taken by another URN) without losing its batch', async () => {
    await importLines(api.database.db, [itemLine('dup1', '1')]);
    const summary = await importLines(
      api.database.db,
      [itemLine('dup1', '2'), itemLine('dup1', '3', { slug: 'card-dup1-1' }), itemLine('dup1', '4')],
      10,
    );
    expect(summary.skipped).toEqual([{ line: 2, reason: expect.stringMatching(/rejected by the database/) }]);
    expect(summary.items.inserted).toBe(2);
    const [row] = await api.database.db.query(`SELECT count(*)::int AS n FROM catalog_items WHERE set_urn = 'pokemon/test/dup1'`);
    expect(row.n).toBe(3);
  });

  it('imports a set line into its series, creating the game when it is new', async () => {
    const summary = await importLines(api.database.db, [
      JSON.stringify({
        urn: 'lorcana/first/tfc',
        name: 'The First Chapter',
        series: { name: 'First', urn: 'lorcana/first' },
        counts: { printed: 204, total: 216 },
        references: [],
        size: 216,
        symbol: { url: null },
        released: '2023-08-18',
      }),
    ]);
    expect(summary.sets.inserted).toBe(1);
    const [set] = await api.database.db.query(`SELECT game_urn, total_count FROM catalog_sets WHERE urn = 'lorcana/first/tfc'`);
    expect(set).toEqual({ game_urn: 'lorcana', total_count: 216 });
  });
});

import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const HEADER = 'urn,game,name,quantity,minCondition,languages,variants,maxPrice';

const createList = (user: TestUser, name: string) => api.http.post('/user/wants').set(user.bearer).send({ name });
const addLine = (user: TestUser, listId: string, body: object) => api.http.post(`/user/wants/${listId}/lines`).set(user.bearer).send(body);
const importText = (user: TestUser, listId: string, body: object) =>
  api.http.post(`/user/wants/${listId}/import`).set(user.bearer).send(body);
const linesOf = async (user: TestUser, listId: string, size = 50) =>
  (await api.http.get(`/user/wants/${listId}/lines?size=${size}`).set(user.bearer).expect(200)).body;
const lineCount = async (user: TestUser, listId: string) =>
  (await api.http.get(`/user/wants/${listId}`).set(user.bearer).expect(200)).body.lineCount as number;

async function newList(user: TestUser, name = 'Deck'): Promise<string> {
  return (await createList(user, name).expect(201)).body.id;
}

describe('wants lists', () => {
  it('are created, read, paged, renamed and deleted', async () => {
    const user = await registerUser(api);
    const created = await createList(user, '  Fire deck ').expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Fire deck',
      lineCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const second = await createList(user, '🔥'.repeat(100)).expect(201);
    expect((await api.http.get(`/user/wants/${created.body.id}`).set(user.bearer).expect(200)).body).toEqual(created.body);

    const all = await api.http.get('/user/wants').set(user.bearer).expect(200);
    expect(all.body).toEqual({ items: [created.body, second.body], total: 2, page: 1, size: 20 });
    const page2 = await api.http.get('/user/wants?page=2&size=1').set(user.bearer).expect(200);
    expect(page2.body).toMatchObject({ total: 2, page: 2, size: 1, items: [{ id: second.body.id }] });

    const renamed = await api.http.patch(`/user/wants/${created.body.id}`).set(user.bearer).send({ name: 'Water deck' }).expect(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Water deck' });
    // Renaming to its own name is no conflict.
    await api.http.patch(`/user/wants/${created.body.id}`).set(user.bearer).send({ name: 'Water deck' }).expect(200);

    await api.http.delete(`/user/wants/${second.body.id}`).set(user.bearer).expect(204);
    await api.http.get(`/user/wants/${second.body.id}`).set(user.bearer).expect(404);
    await api.http.delete(`/user/wants/${second.body.id}`).set(user.bearer).expect(404);
    expect((await api.http.get('/user/wants').set(user.bearer).expect(200)).body.total).toBe(1);
    await api.http.get('/user/wants').expect(401);
  });

  it('refuse a name the caller already uses, on create and rename; other users may use it', async () => {
    const user = await registerUser(api);
    await newList(user, 'Modern');
    const other = await newList(user, 'Legacy');
    const taken = await createList(user, 'Modern').expect(409);
    expect(taken.body.type).toBe('/problems/wants-list-name-taken');
    const renamed = await api.http.patch(`/user/wants/${other}`).set(user.bearer).send({ name: 'Modern' }).expect(409);
    expect(renamed.body.type).toBe('/problems/wants-list-name-taken');
    expect((await api.http.get(`/user/wants/${other}`).set(user.bearer).expect(200)).body.name).toBe('Legacy');
    await newList(await registerUser(api), 'Modern');
  });

  it('are at most 20 per user', async () => {
    const user = await registerUser(api);
    for (let i = 0; i < 20; i++) await newList(user, `List ${i}`);
    const refused = await createList(user, 'One more').expect(409);
    expect(refused.body.type).toBe('/problems/wants-list-limit-reached');
    expect((await api.http.get('/user/wants?size=50').set(user.bearer).expect(200)).body.total).toBe(20);
  });

  it('refuse invalid bodies with 400 and change nothing', async () => {
    const user = await registerUser(api);
    const id = await newList(user, 'Kept');
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, {}, { name: 'ok', extra: 1 }, { name: 5 }]) {
      const res = await api.http.post('/user/wants').set(user.bearer).send(body).expect(400);
      expect(res.body.type).toBe('/problems/validation-failed');
      await api.http.patch(`/user/wants/${id}`).set(user.bearer).send(body).expect(400);
    }
    await api.http.get('/user/wants/not-a-uuid').set(user.bearer).expect(400);
    const all = await api.http.get('/user/wants').set(user.bearer).expect(200);
    expect(all.body).toMatchObject({ total: 1, page: 1, size: 20 });
    expect(all.body.items.map((l: { name: string }) => l.name)).toEqual(['Kept']);
  });
});

describe('wants lines', () => {
  it('name one item or a card by name (the catalog spelling kept), change and go', async () => {
    const user = await registerUser(api);
    const { items } = await seedCatalog(api.database.db, { names: ['Venusaur'] });
    const id = await newList(user);
    const byUrn = await addLine(user, id, { urn: items[0]!.urn, quantity: 2 }).expect(201);
    expect(byUrn.body).toEqual({
      id: expect.any(String),
      urn: items[0]!.urn,
      card: null,
      quantity: 2,
      minCondition: null,
      languages: null,
      variants: null,
      maxPrice: null,
      available: 0,
      lowestPrice: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const byName = await addLine(user, id, {
      card: { game: 'pokemon', name: 'vENUSAUR' },
      quantity: 4,
      minCondition: 'EXCELLENT',
      languages: ['EN', 'fr'],
      variants: [{ name: 'finish', value: 'holo' }],
      maxPrice: 2500,
    }).expect(201);
    expect(byName.body).toMatchObject({
      urn: null,
      card: { game: 'pokemon', name: 'Venusaur' },
      quantity: 4,
      minCondition: 'EXCELLENT',
      languages: ['en', 'fr'],
      variants: [{ name: 'finish', value: 'holo' }],
      maxPrice: 2500,
    });

    const lineUrl = `/user/wants/${id}/lines/${byName.body.id}`;
    const patched = await api.http.patch(lineUrl).set(user.bearer).send({ quantity: 1, maxPrice: null, languages: null }).expect(200);
    expect(patched.body).toMatchObject({
      quantity: 1,
      maxPrice: null,
      languages: null,
      minCondition: 'EXCELLENT',
      card: { name: 'Venusaur' },
    });
    const toItem = await api.http.patch(lineUrl).set(user.bearer).send({ urn: items[0]!.urn }).expect(200);
    expect(toItem.body).toMatchObject({ urn: items[0]!.urn, card: null, quantity: 1, variants: [{ name: 'finish', value: 'holo' }] });

    const page = await linesOf(user, id);
    expect(page).toMatchObject({ total: 2, page: 1, size: 50 });
    expect(page.items.map((l: { id: string }) => l.id)).toEqual([byUrn.body.id, byName.body.id]);
    expect(await lineCount(user, id)).toBe(2);

    await api.http.delete(lineUrl).set(user.bearer).expect(204);
    await api.http.delete(lineUrl).set(user.bearer).expect(404);
    await api.http.patch(lineUrl).set(user.bearer).send({ quantity: 3 }).expect(404);
    expect(await lineCount(user, id)).toBe(1);
  });

  it('refuse an unknown urn, game or card name, naming the field, and invalid fields; nothing is added', async () => {
    const user = await registerUser(api);
    const { items } = await seedCatalog(api.database.db, { names: ['Wartortle'] });
    const id = await newList(user);
    const line = (await addLine(user, id, { urn: items[0]!.urn, quantity: 1 }).expect(201)).body;
    const unknown = [
      [{ urn: 'pokemon/base/nowhere/1', quantity: 1 }, 'urn'],
      [{ card: { game: 'magic', name: 'Wartortle' }, quantity: 1 }, 'card.game'],
      [{ card: { game: 'pokemon', name: 'Wartortl' }, quantity: 1 }, 'card.name'],
    ] as const;
    for (const [body, field] of unknown) {
      const res = await addLine(user, id, body).expect(400);
      expect(res.body).toMatchObject({ type: '/problems/wants-card-unknown', errors: [{ in: 'body', field }] });
      const patched = await api.http.patch(`/user/wants/${id}/lines/${line.id}`).set(user.bearer).send(body).expect(400);
      expect(patched.body.type).toBe('/problems/wants-card-unknown');
    }
    const invalid = [
      { urn: items[0]!.urn, quantity: 0 },
      { urn: items[0]!.urn, quantity: 100 },
      { urn: items[0]!.urn },
      { quantity: 1 },
      { urn: items[0]!.urn, card: { game: 'pokemon', name: 'Wartortle' }, quantity: 1 },
      { urn: items[0]!.urn, quantity: 1, minCondition: 'SHINY' },
      { urn: items[0]!.urn, quantity: 1, languages: ['eng'] },
      { urn: items[0]!.urn, quantity: 1, languages: [] },
      { urn: items[0]!.urn, quantity: 1, variants: [{ name: 'finish' }] },
      { urn: items[0]!.urn, quantity: 1, variants: [{ name: 'a;b', value: 'x' }] },
      { urn: items[0]!.urn, quantity: 1, maxPrice: 0 },
      { urn: items[0]!.urn, quantity: 1, maxPrice: 1.5 },
    ];
    for (const body of invalid) {
      const res = await addLine(user, id, body);
      expect([body, res.status, res.body.type]).toEqual([body, 400, '/problems/validation-failed']);
    }
    await api.http.patch(`/user/wants/${id}/lines/${line.id}`).set(user.bearer).send({}).expect(400);
    await api.http.patch(`/user/wants/${id}/lines/${line.id}`).set(user.bearer).send({ quantity: 0 }).expect(400);
    expect(await lineCount(user, id)).toBe(1);
    expect((await linesOf(user, id)).items).toEqual([line]);
  });

  it('are at most 1,000 per list: an import filling it, then one more line or import is refused whole', async () => {
    const user = await registerUser(api);
    await seedCatalog(api.database.db, { names: ['Squirtle'] });
    const id = await newList(user);
    const full = await importText(user, id, { format: 'decklist', text: '1 Squirtle\n'.repeat(1000) }).expect(200);
    expect(full.body).toMatchObject({ imported: 1000, unresolved: [] });
    expect(full.body.lines).toHaveLength(1000);
    const one = await addLine(user, id, { card: { game: 'pokemon', name: 'Squirtle' }, quantity: 1 }).expect(409);
    expect(one.body.type).toBe('/problems/wants-line-limit-reached');
    const more = await importText(user, id, { format: 'decklist', text: '2 Squirtle\n' }).expect(409);
    expect(more.body.type).toBe('/problems/wants-line-limit-reached');
    expect(await lineCount(user, id)).toBe(1000);

    const empty = await newList(user, 'Empty');
    await importText(user, empty, { format: 'decklist', text: '1 Squirtle\n'.repeat(1001) }).expect(409);
    expect(await lineCount(user, empty)).toBe(0);
  });
});

describe('ownership', () => {
  it('hides every list and line of another user behind 404', async () => {
    const owner = await registerUser(api);
    const other = await registerUser(api);
    const { items } = await seedCatalog(api.database.db, { names: ['Ivysaur'] });
    const id = await newList(owner, 'Mine');
    const line = (await addLine(owner, id, { urn: items[0]!.urn, quantity: 1 }).expect(201)).body;
    const o = other.bearer;
    await api.http.get(`/user/wants/${id}`).set(o).expect(404);
    await api.http.patch(`/user/wants/${id}`).set(o).send({ name: 'Theirs' }).expect(404);
    await api.http.delete(`/user/wants/${id}`).set(o).expect(404);
    await api.http.get(`/user/wants/${id}/lines`).set(o).expect(404);
    await api.http.post(`/user/wants/${id}/lines`).set(o).send({ urn: items[0]!.urn, quantity: 1 }).expect(404);
    await api.http.patch(`/user/wants/${id}/lines/${line.id}`).set(o).send({ quantity: 2 }).expect(404);
    await api.http.delete(`/user/wants/${id}/lines/${line.id}`).set(o).expect(404);
    await api.http.post(`/user/wants/${id}/import`).set(o).send({ format: 'decklist', text: '1 Ivysaur' }).expect(404);
    await api.http.get(`/user/wants/${id}/export`).set(o).expect(404);
    // A line is found only under its own list, even another list of the same user.
    const mine2 = await newList(owner, 'Mine too');
    await api.http.patch(`/user/wants/${mine2}/lines/${line.id}`).set(owner.bearer).send({ quantity: 2 }).expect(404);
    expect((await api.http.get('/user/wants').set(o).expect(200)).body.total).toBe(0);
    expect((await linesOf(owner, id)).items).toEqual([line]);
    expect((await api.http.get(`/user/wants/${id}`).set(owner.bearer).expect(200)).body.name).toBe('Mine');
  });
});

describe('import and export', () => {
  it('reads a deck list, resolving set printings, and reports every other line by number', async () => {
    const user = await registerUser(api);
    const { items, setUrn } = await seedCatalog(api.database.db, { names: ['Pidgey', 'Rattata'] });
    const setName = `Set ${setUrn.split('/').pop()}`;
    await seedCatalog(api.database.db, { set: 'twopidgeys', names: ['Pidgey', 'Pidgey'] });
    const id = await newList(user);
    const text = [
      '// Birds', // 1
      '4 Pidgey', // 2
      '', // 3
      '2x rattata', // 4
      `1 pidgey [${setName.toUpperCase()}]`, // 5
      '# sideboard', // 6
      'Rattata', // 7
      '0 Pidgey', // 8
      '100 Pidgey', // 9
      '3 Pidgeotto', // 10
      '1 Pidgey [Nowhere]', // 11
      `1 Mew [${setName}]`, // 12
      '1 Pidgey [Set twopidgeys]', // 13
      '  3 X Rattata  ', // 14
    ].join('\r\n');
    const res = await importText(user, id, { format: 'decklist', text }).expect(200);
    expect(res.body.unresolved).toEqual([
      { lineNumber: 8, text: '0 Pidgey', reason: 'quantity 0 is not between 1 and 99' },
      { lineNumber: 9, text: '100 Pidgey', reason: 'quantity 100 is not between 1 and 99' },
      { lineNumber: 10, text: '3 Pidgeotto', reason: 'no card named "Pidgeotto" in game "pokemon"' },
      { lineNumber: 11, text: '1 Pidgey [Nowhere]', reason: 'no set named "Nowhere" in game "pokemon"' },
      { lineNumber: 12, text: `1 Mew [${setName}]`, reason: `set "${setName}" has no card named "Mew"` },
      {
        lineNumber: 13,
        text: '1 Pidgey [Set twopidgeys]',
        reason:
          'set "Set twopidgeys" has 2 cards named "Pidgey" (pokemon/base/twopidgeys/1, pokemon/base/twopidgeys/2); import a CSV line naming one by urn',
      },
    ]);
    expect(res.body.imported).toBe(5);
    const shape = (l: { urn: string | null; card: unknown; quantity: number }) => [l.urn, l.card, l.quantity];
    const expected = [
      [null, { game: 'pokemon', name: 'Pidgey' }, 4],
      [null, { game: 'pokemon', name: 'Rattata' }, 2],
      [items[0]!.urn, null, 1],
      [null, { game: 'pokemon', name: 'Rattata' }, 1],
      [null, { game: 'pokemon', name: 'Rattata' }, 3],
    ];
    expect(res.body.lines.map(shape)).toEqual(expected);
    expect((await linesOf(user, id)).items.map(shape)).toEqual(expected);
  });

  it('reads a CSV, reporting each bad row by its line; a bad header refuses the file', async () => {
    const user = await registerUser(api);
    const { items } = await seedCatalog(api.database.db, { names: ['Zubat'] });
    const id = await newList(user);
    const text = [
      HEADER, // 1
      `${items[0]!.urn},,,2,GOOD,en;de,finish=holo;edition=1st,1500`, // 2
      ',pokemon,zubat,1,,,,', // 3
      '', // 4
      ',pokemon,Golbat,1,,,,', // 5
      `${items[0]!.urn},,,0,,,,`, // 6
      'pokemon/base/nowhere/9,,,1,,,,', // 7
      `${items[0]!.urn},pokemon,Zubat,1,,,,`, // 8
      `${items[0]!.urn},,,1,,,holo,`, // 9
      `${items[0]!.urn},,,1,SHINY,,,`, // 10
      ',magic,Zubat,1,,,,', // 11
      '"pokemon/base/x', // 12 (an unclosed quote)
    ];
    const bad = await importText(user, id, { format: 'csv', text: text.join('\n') }).expect(400);
    expect(bad.body.type).toBe('/problems/validation-failed');
    const res = await importText(user, id, { format: 'csv', text: text.slice(0, -1).join('\n') + '\n' }).expect(200);
    expect(res.body.unresolved).toEqual([
      { lineNumber: 5, text: ',pokemon,Golbat,1,,,,', reason: 'no card named "Golbat" in game "pokemon"' },
      { lineNumber: 6, text: `${items[0]!.urn},,,0,,,,`, reason: '"quantity" must be greater than or equal to 1' },
      { lineNumber: 7, text: 'pokemon/base/nowhere/9,,,1,,,,', reason: 'no catalog item has the urn "pokemon/base/nowhere/9"' },
      { lineNumber: 8, text: `${items[0]!.urn},pokemon,Zubat,1,,,,`, reason: 'give either a urn or a game and a name, not both' },
      { lineNumber: 9, text: `${items[0]!.urn},,,1,,,holo,`, reason: 'variant "holo" is not name=value' },
      {
        lineNumber: 10,
        text: `${items[0]!.urn},,,1,SHINY,,,`,
        reason: expect.stringMatching(/^"minCondition" must be one of \[MINT, NEAR_MINT/),
      },
      { lineNumber: 11, text: ',magic,Zubat,1,,,,', reason: 'there is no game "magic"' },
    ]);
    expect(res.body.imported).toBe(2);
    expect(res.body.lines).toMatchObject([
      {
        urn: items[0]!.urn,
        quantity: 2,
        minCondition: 'GOOD',
        languages: ['en', 'de'],
        variants: [
          { name: 'finish', value: 'holo' },
          { name: 'edition', value: '1st' },
        ],
        maxPrice: 1500,
      },
      { card: { game: 'pokemon', name: 'Zubat' }, quantity: 1, minCondition: null, languages: null, variants: null, maxPrice: null },
    ]);

    for (const header of ['urn,quantity,colour', 'urn,game,name', '']) {
      const refused = await importText(user, id, { format: 'csv', text: `${header}\n${items[0]!.urn},1\n` }).expect(400);
      expect(refused.body.type).toBe('/problems/import-csv-invalid');
    }
    expect(await lineCount(user, id)).toBe(2);
  });

  it('takes the only game by default, and asks for one when the catalog has several', async () => {
    const user = await registerUser(api);
    await seedCatalog(api.database.db, { names: ['Onix'] });
    const id = await newList(user);
    await importText(user, id, { format: 'decklist', text: '1 Onix', game: 'magic' })
      .expect(400)
      .expect((res) => expect(res.body).toMatchObject({ type: '/problems/wants-card-unknown', errors: [{ field: 'game' }] }));
    await api.database.db.query(`INSERT INTO catalog_games (urn, name) VALUES ('magic', 'Magic') ON CONFLICT DO NOTHING`);
    const refused = await importText(user, id, { format: 'decklist', text: '1 Onix' }).expect(400);
    expect(refused.body).toMatchObject({ type: '/problems/validation-failed', errors: [{ field: 'game' }] });
    const res = await importText(user, id, { format: 'decklist', text: '1 Onix', game: 'pokemon' }).expect(200);
    expect(res.body.imported).toBe(1);
    await api.database.db.query(`DELETE FROM catalog_games WHERE urn = 'magic'`);
  });

  it('exports CSV that imports back into the same lines', async () => {
    const user = await registerUser(api);
    const { items } = await seedCatalog(api.database.db, { names: ['Mankey', 'Primeape'] });
    const id = await newList(user, 'Source');
    await addLine(user, id, {
      urn: items[0]!.urn,
      quantity: 3,
      minCondition: 'LIGHT_PLAYED',
      languages: ['en', 'ja'],
      variants: [
        { name: '+foil', value: 'reverse, "holo"' },
        { name: 'stamp', value: 'a=b' },
      ],
      maxPrice: 1200,
    }).expect(201);
    await addLine(user, id, { card: { game: 'pokemon', name: 'primeape' }, quantity: 99 }).expect(201);
    const exported = await api.http.get(`/user/wants/${id}/export`).set(user.bearer).expect(200);
    expect(exported.headers['content-type']).toMatch(/^text\/csv/);
    expect(exported.text).toBe(
      `${HEADER}\r\n` +
        `${items[0]!.urn},,,3,LIGHT_PLAYED,en;ja,"'+foil=reverse, ""holo"";stamp=a=b",1200\r\n` +
        ',pokemon,Primeape,99,,,,\r\n',
    );
    const copy = await newList(user, 'Copy');
    const res = await importText(user, copy, { format: 'csv', text: exported.text }).expect(200);
    expect(res.body).toMatchObject({ imported: 2, unresolved: [] });
    const strip = (lines: Array<Record<string, unknown>>) => lines.map(({ id: _, createdAt: __, updatedAt: ___, ...rest }) => rest);
    expect(strip((await linesOf(user, copy)).items)).toEqual(strip((await linesOf(user, id)).items));
    expect((await api.http.get(`/user/wants/${copy}/export`).set(user.bearer).expect(200)).text).toBe(exported.text);
  });
});

describe('availability', () => {
  it('counts the live units that fit each line and their lowest price', async () => {
    const user = await registerUser(api);
    const seller = await registerSeller(api);
    const away = await registerSeller(api);
    await api.database.db.query(`UPDATE seller_accounts SET vacation = true WHERE user_id = $1`, [away.id]);
    // Two printings of one card, in two sets.
    const a = (await seedCatalog(api.database.db, { names: ['Gengar'] })).items[0]!.urn;
    const b = (await seedCatalog(api.database.db, { names: ['Gengar'] })).items[0]!.urn;
    const db = api.database.db;
    const holo = [
      { name: 'finish', value: 'holo' },
      { name: 'edition', value: '1st' },
    ];
    await insertListing(db, { sellerId: seller.id, itemUrn: a, condition: 'NEAR_MINT', price: 1000, quantity: 3, reserved: 1 });
    await insertListing(db, { sellerId: seller.id, itemUrn: b, condition: 'NEAR_MINT', price: 800, quantity: 1 });
    await insertListing(db, { sellerId: seller.id, itemUrn: a, condition: 'POOR', price: 100, quantity: 5 });
    await insertListing(db, { sellerId: seller.id, itemUrn: a, language: 'de', price: 1500, quantity: 1, variants: holo });
    // None of these count: hidden, deleted, sold out (all reserved), invalid, a seller on vacation.
    await insertListing(db, { sellerId: seller.id, itemUrn: a, price: 50, quantity: 3, hidden: true });
    await insertListing(db, { sellerId: seller.id, itemUrn: a, price: 60, quantity: 3, deletedAt: new Date() });
    await insertListing(db, { sellerId: seller.id, itemUrn: a, price: 70, quantity: 2, reserved: 2 });
    await insertListing(db, { sellerId: seller.id, itemUrn: a, price: 75, quantity: 0 });
    await insertListing(db, { sellerId: seller.id, itemUrn: a, price: 80, quantity: 3, valid: false });
    await insertListing(db, { sellerId: away.id, itemUrn: a, price: 90, quantity: 3 });

    const id = await newList(user);
    const card = { game: 'pokemon', name: 'Gengar' };
    const cases: Array<[object, number, number | null]> = [
      [{ urn: a }, 2 + 5 + 1, 100],
      [{ urn: a, minCondition: 'GOOD' }, 2 + 1, 1000],
      [{ card, minCondition: 'GOOD' }, 2 + 1 + 1, 800],
      [{ urn: b }, 1, 800],
      [{ urn: a, minCondition: 'MINT' }, 0, null],
      [{ urn: a, languages: ['de'] }, 1, 1500],
      [{ urn: a, languages: ['fr', 'en'], minCondition: 'GOOD' }, 2, 1000],
      [{ urn: a, variants: [{ name: 'finish', value: 'holo' }] }, 1, 1500],
      [
        {
          urn: a,
          variants: [
            { name: 'finish', value: 'holo' },
            { name: 'edition', value: '2nd' },
          ],
        },
        0,
        null,
      ],
      [{ urn: a, variants: holo }, 1, 1500],
      [{ urn: a, minCondition: 'GOOD', maxPrice: 999 }, 0, null],
      [{ urn: a, minCondition: 'GOOD', maxPrice: 1000 }, 2, 1000],
      [{ card, maxPrice: 900 }, 5 + 1, 100],
    ];
    const added: Array<{ available: number; lowestPrice: number | null }> = [];
    for (const [line] of cases) added.push((await addLine(user, id, { ...line, quantity: 1 }).expect(201)).body);
    const expected = cases.map(([line, available, lowestPrice]) => [line, available, lowestPrice]);
    expect(cases.map(([line], i) => [line, added[i]!.available, added[i]!.lowestPrice])).toEqual(expected);
    const { items: lines } = await linesOf(user, id);
    expect(cases.map(([line], i) => [line, lines[i].available, lines[i].lowestPrice])).toEqual(expected);

    // The market moves; the next read says so.
    await db.query(`UPDATE seller_accounts SET vacation = false WHERE user_id = $1`, [away.id]);
    const after = (await linesOf(user, id)).items;
    expect([after[0].available, after[0].lowestPrice]).toEqual([2 + 5 + 1 + 3, 90]);
  });
});

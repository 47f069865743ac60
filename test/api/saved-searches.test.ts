import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const save = (user: TestUser, body: object) => api.http.post('/user/saved-searches').set(user.bearer).send(body);

describe('saved searches', () => {
  it('save a catalog or a listing search with its defaults, list, read, run and delete them', async () => {
    const user = await registerUser(api);
    const { setUrn, items } = await seedCatalog(api.database.db, { names: ['Charizard', 'Charmander', 'Pikachu'] });
    const seller = await registerSeller(api);
    const cheap = await insertListing(api.database.db, { sellerId: seller.id, itemUrn: items[0]!.urn, price: 900 });
    await insertListing(api.database.db, { sellerId: seller.id, itemUrn: items[0]!.urn, price: 9000 });

    const catalog = await save(user, { name: ' Charizards ', catalog: { q: 'charizard', set: setUrn } }).expect(201);
    expect(catalog.body).toEqual({
      id: expect.any(String),
      name: 'Charizards',
      catalog: { q: 'charizard', set: setUrn, sort: 'relevance', page: 1, size: 20 },
      listings: null,
      createdAt: expect.any(String),
    });
    const listings = await save(user, { name: 'Cheap', listings: { urn: items[0]!.urn, filters: { priceMax: 1000 } } }).expect(201);
    expect(listings.body).toMatchObject({
      catalog: null,
      listings: { urn: items[0]!.urn, filters: { priceMax: 1000 }, sort: 'price', from: 0, size: 20 },
    });

    const all = await api.http.get('/user/saved-searches').set(user.bearer).expect(200);
    expect(all.body).toEqual({ searches: [catalog.body, listings.body] });
    expect((await api.http.get(`/user/saved-searches/${listings.body.id}`).set(user.bearer).expect(200)).body).toEqual(listings.body);

    // Running one answers exactly what the search route answers.
    const ran = await api.http.get(`/user/saved-searches/${catalog.body.id}/results`).set(user.bearer).expect(200);
    const direct = await api.http.get('/search').query({ q: 'charizard', set: setUrn }).expect(200);
    expect(ran.body).toEqual(direct.body);
    expect(ran.body.items.map((i: { urn: string }) => i.urn)).toEqual([items[0]!.urn]);
    const hits = await api.http.get(`/user/saved-searches/${listings.body.id}/results`).set(user.bearer).expect(200);
    expect(hits.body).toMatchObject({ total: 1, hits: [{ id: cheap.id, price: 900 }] });
    expect(hits.body).toEqual((await api.http.post('/listings/item').send(listings.body.listings).expect(200)).body);

    await api.http.delete(`/user/saved-searches/${catalog.body.id}`).set(user.bearer).expect(204);
    await api.http.get(`/user/saved-searches/${catalog.body.id}`).set(user.bearer).expect(404);
    await api.http.get(`/user/saved-searches/${catalog.body.id}/results`).set(user.bearer).expect(404);
    await api.http.delete(`/user/saved-searches/${catalog.body.id}`).set(user.bearer).expect(404);
    expect((await api.http.get('/user/saved-searches').set(user.bearer).expect(200)).body.searches).toHaveLength(1);
    await api.http.get('/user/saved-searches').expect(401);
  });

  it("are the caller's own: another user's is not found", async () => {
    const owner = await registerUser(api);
    const other = await registerUser(api);
    const { body } = await save(owner, { name: 'Mine', catalog: { q: 'pikachu' } }).expect(201);
    await api.http.get(`/user/saved-searches/${body.id}`).set(other.bearer).expect(404);
    await api.http.get(`/user/saved-searches/${body.id}/results`).set(other.bearer).expect(404);
    await api.http.delete(`/user/saved-searches/${body.id}`).set(other.bearer).expect(404);
    expect((await api.http.get('/user/saved-searches').set(other.bearer).expect(200)).body.searches).toEqual([]);
    await api.http.get(`/user/saved-searches/${body.id}`).set(owner.bearer).expect(200);
  });

  it('validate the criteria as the search routes do, and take exactly one search', async () => {
    const user = await registerUser(api);
    const bodies = [
      { name: 'x' },
      { name: 'both', catalog: { q: 'a' }, listings: { urn: 'pokemon/base/base1/4' } },
      { name: '', catalog: { q: 'a' } },
      { name: 'bad sort', catalog: { sort: 'cheapest' } },
      { name: 'big page', catalog: { size: 51 } },
      { name: 'no item', listings: { filters: { priceMax: 10 } } },
      { name: 'inverted', listings: { urn: 'pokemon/base/base1/4', filters: { priceMin: 500, priceMax: 100 } } },
      { name: 'extra', catalog: { q: 'a' }, colour: 'red' },
    ];
    for (const body of bodies) {
      const res = await save(user, body).expect(400);
      expect(res.body.type).toBe('/problems/validation-failed');
    }
    expect((await api.http.get('/user/saved-searches').set(user.bearer).expect(200)).body.searches).toEqual([]);
  });

  it('are at most 50 per user', async () => {
    const user = await registerUser(api);
    for (let i = 0; i < 50; i++) await save(user, { name: `Search ${i}`, catalog: { q: `card ${i}` } }).expect(201);
    const refused = await save(user, { name: 'One more', catalog: { q: 'more' } }).expect(409);
    expect(refused.body.type).toBe('/problems/saved-search-limit-reached');
    expect((await api.http.get('/user/saved-searches').set(user.bearer).expect(200)).body.searches).toHaveLength(50);
  });
});

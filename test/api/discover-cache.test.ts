import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { listenerConnected, listenerPids, soon } from '../support/discover-changes';
import { insertListing, seedCatalog } from '../support/fixtures';

// The Discover caches as production runs them (every other API test turns them off to read its
// own writes at once): answers are kept in memory until the database notifies a change of their
// item, and for at most DISCOVER_CACHE_MS. The TTL here is the longest allowed, so an answer that
// changes within a few seconds changed because of a notification, not because it expired.
const TTL_MS = 30_000;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { DISCOVER_CACHE_MS: String(TTL_MS) } });
  await listenerConnected(api);
});
afterAll(() => api.close());

async function liveItem() {
  const db = api.database.db;
  const { setUrn, items } = await seedCatalog(db, { names: ['Zapdos', 'Zubat'] });
  const seller = await registerSeller(api);
  const [zapdos, zubat] = items as [(typeof items)[0], (typeof items)[0]];
  const listing = await insertListing(db, { sellerId: seller.id, itemUrn: zapdos.urn, price: 500 });
  await insertListing(db, { sellerId: seller.id, itemUrn: zubat.urn, price: 700 });
  return {
    setUrn,
    urn: zapdos.urn,
    otherUrn: zubat.urn,
    seller,
    listing,
    reprice: (price: number) => db.query('UPDATE listings SET price = $1 WHERE id = $2', [price, listing.id]),
    renameSet: (name: string) => db.query('UPDATE catalog_sets SET name = $1 WHERE urn = $2', [name, setUrn]),
    // The same change with triggers off (a replica's session): nobody is told, as when a
    // notification is missed. Shows whether an answer came from memory.
    renameSetUnheard: (name: string) =>
      db.transaction(async (tx) => {
        await tx.query(`SET LOCAL session_replication_role = replica`);
        await tx.query('UPDATE catalog_sets SET name = $1 WHERE urn = $2', [name, setUrn]);
      }),
  };
}

describe('Discover caches, kept until the database notifies a change', () => {
  it('bulk lookup: serves items from memory, and shows a price change as soon as it is notified', async () => {
    const { urn, reprice, renameSet, renameSetUnheard } = await liveItem();
    const lookup = () =>
      api.http
        .post('/search/lookup/bulk')
        .send({ urns: [urn, 'pokemon/none/x/1'] })
        .expect(200);
    const first = await lookup();
    expect(first.body).toEqual([expect.objectContaining({ urn, price: 500, available: 1 })]);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['x-unprocessed-urns']).toBe('pokemon/none/x/1');

    // From memory: a change nobody was told of does not show.
    await renameSetUnheard('Renamed unheard');
    expect((await lookup()).body[0].set.name).not.toBe('Renamed unheard');
    // A set's rename is a change of every item in it.
    await renameSet('Renamed set');
    expect(await soon(async () => (await lookup()).body[0].set.name, 'Renamed set')).toBe('Renamed set');

    await reprice(900);
    expect(await soon(async () => (await lookup()).body[0].price, 900)).toBe(900);
    const later = await lookup();
    expect(later.body[0]).toMatchObject({ urn, price: 900, min: { price: 900 } });
    expect(later.headers['x-unprocessed-count']).toBe('1');
  });

  it('catalog search: a price ranking follows a notified price change; items on the page carry the new price', async () => {
    const { setUrn, urn, otherUrn, reprice } = await liveItem();
    const byPrice = async () => {
      const res = await api.http.get('/search').query({ sort: 'price', set: setUrn }).expect(200);
      return (res.body.items as Array<{ urn: string; price: number }>).map((i) => `${i.urn}@${i.price}`).join(' ');
    };
    expect(await byPrice()).toBe(`${urn}@500 ${otherUrn}@700`);
    await reprice(800);
    expect(await soon(byPrice, `${otherUrn}@700 ${urn}@800`)).toBe(`${otherUrn}@700 ${urn}@800`);
  });

  it('listing search: a notified change of the item makes all its cached pages unreachable at once', async () => {
    const { urn, listing, reprice } = await liveItem();
    const search = (body: object = {}) =>
      api.http
        .post('/listings/item')
        .send({ urn, ...body })
        .expect(200);
    const first = await search();
    expect(first.body).toMatchObject({ total: 1, hits: [{ id: listing.id, price: 500 }] });
    expect(first.headers['cache-control']).toBe('public, max-age=30');
    await search({ sort: '-price' });

    await reprice(900);
    expect(await soon(async () => (await search()).body.hits[0].price, 900)).toBe(900);
    // The other page of the same item was dropped by the same notification, not by its TTL.
    expect((await search({ sort: '-price' })).body.hits[0].price).toBe(900);
  });

  it('keys listing searches by the whole query: another filter is never answered from a different query', async () => {
    const { urn, listing } = await liveItem();
    await api.http.post('/listings/item').send({ urn }).expect(200);
    const none = await api.http
      .post('/listings/item')
      .send({ urn, filters: { priceMin: 501 } })
      .expect(200);
    expect(none.body).toEqual({ total: 0, hits: [] });
    const some = await api.http
      .post('/listings/item')
      .send({ urn, filters: { priceMax: 500 } })
      .expect(200);
    expect(some.body.hits.map((h: { id: string }) => h.id)).toEqual([listing.id]);
  });

  it('drops everything when notifications may have been missed: a lost listener connection, then its return', async () => {
    const { urn, renameSetUnheard } = await liveItem();
    const setName = async () =>
      (
        await api.http
          .post('/search/lookup/bulk')
          .send({ urns: [urn] })
          .expect(200)
      ).body[0].set.name;
    const before = await setName();
    await renameSetUnheard('Seen after a reset');
    expect(await setName()).toBe(before);

    const [pid] = await listenerPids(api);
    await api.database.db.query('SELECT pg_terminate_backend($1)', [pid]);
    expect(await soon(setName, 'Seen after a reset')).toBe('Seen after a reset');
    // And it comes back, as a new connection that hears changes again.
    await soon(async () => (await listenerPids(api)).some((p) => p !== pid), true);
    await listenerConnected(api);
    const { urn: next, reprice } = await liveItem();
    const price = async () =>
      (
        await api.http
          .post('/search/lookup/bulk')
          .send({ urns: [next] })
          .expect(200)
      ).body[0].price;
    expect(await price()).toBe(500);
    await reprice(650);
    expect(await soon(price, 650)).toBe(650);
  });
});

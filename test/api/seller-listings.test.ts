import { commitStock, releaseStock, reserveStock } from '../../src/services/listings/stock';
import { FACET_KEYS } from '../../src/services/listings/seller-search-fields';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog, type FixtureItem } from '../support/fixtures';

let api: TestApi;
let items: FixtureItem[];
beforeAll(async () => {
  api = await startTestApi();
  ({ items } = await seedCatalog(api.database.db, { names: ['Alakazam', 'Blastoise', 'Charizard', 'Dragonite'] }));
});
afterAll(() => api.close());

const body = (over: Record<string, unknown> = {}) => ({
  urn: items[0]!.urn,
  condition: 'NEAR_MINT',
  language: 'en',
  price: 1250,
  quantity: 3,
  ...over,
});

async function create(seller: TestUser, over: Record<string, unknown> = {}) {
  const res = await api.http.post('/seller/listings').set(seller.bearer).send(body(over)).expect(201);
  return res.body as { id: string; valid: boolean; quantity: number };
}

async function events(sellerId: string, type?: string) {
  const rows: Array<{ type: string; data: Record<string, unknown> }> = await api.database.db.query(
    `SELECT type, data FROM outbox_events WHERE seller_id = $1 AND ($2::text IS NULL OR type = $2) ORDER BY created_at, id`,
    [sellerId, type ?? null],
  );
  return rows;
}

describe('creating, updating and deleting listings', () => {
  it('creates a listing with the spec fields, private fields included, and emits LISTING_CREATED', async () => {
    const seller = await registerSeller(api);
    const res = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send(
        body({
          comment: 'Crisp corners',
          notes: 'SKU-9',
          reference: 'ext-1',
          gradingProvider: 'PSA',
          gradingScore: '9',
          gradingNumber: 'C123',
        }),
      )
      .expect(201);
    expect(res.body).toMatchObject({
      sellerId: seller.id,
      price: 1250,
      quantity: 3,
      available: 3,
      locked: false,
      valid: true,
      hidden: false,
      notes: 'SKU-9',
      reference: 'ext-1',
      gradingProvider: 'PSA',
      item: { urn: items[0]!.urn, name: 'Alakazam' },
      seller: { id: seller.id },
      attachments: [],
    });
    const created = await events(seller.id);
    expect(created).toEqual([
      {
        type: 'LISTING_CREATED',
        data: { sellerId: seller.id, createdAt: expect.any(String), urn: items[0]!.urn, listingId: res.body.id, quantity: 3, price: 1250 },
      },
    ]);
    expect(new Date(created[0]!.data.createdAt as string).toISOString()).toBe(created[0]!.data.createdAt);
  });

  it("keeps offer settings on create, update and bulk; the thresholds only in the seller's own view", async () => {
    const seller = await registerSeller(api);
    const off = await create(seller);
    expect((off as unknown as { offers: unknown }).offers).toEqual({ enabled: false, autoAcceptAt: null, autoDeclineBelow: null });
    const offers = { enabled: true, autoAcceptAt: 1100, autoDeclineBelow: 800 };
    const on = await create(seller, { offers });
    expect((on as unknown as { offers: unknown }).offers).toEqual(offers);
    const updated = await api.http
      .put(`/seller/listings/${off.id}`)
      .set(seller.bearer)
      .send(body({ offers: { enabled: true, autoDeclineBelow: 500 } }))
      .expect(200);
    expect(updated.body.offers).toEqual({ enabled: true, autoAcceptAt: null, autoDeclineBelow: 500 });
    const bulk = await api.http
      .post('/seller/listings/bulk')
      .set(seller.bearer)
      .send({ listings: [body({ offers: { enabled: true, autoAcceptAt: 1000 } }), body({ offers: { enabled: 'maybe' } })] })
      .expect(200);
    expect(bulk.body.results[0].listing.offers).toEqual({ enabled: true, autoAcceptAt: 1000, autoDeclineBelow: null });
    expect(bulk.body.results[1].errors[0].field).toBe('listings.1.offers.enabled');
    const crossed = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send(body({ offers: { enabled: true, autoAcceptAt: 500, autoDeclineBelow: 900 } }))
      .expect(400);
    expect(crossed.body.errors[0].field).toBe('offers.autoDeclineBelow');
    // Buyers see whether offers are on, never the thresholds.
    const seen = await api.http.post('/listings/item').send({ urn: items[0]!.urn, size: 50 }).expect(200);
    const hit = (seen.body.hits as Array<{ id: string; offers: unknown }>).find((h) => h.id === on.id);
    expect(hit?.offers).toEqual({ enabled: true });
  });

  it('computes valid from the documented rules', async () => {
    const seller = await registerSeller(api);
    expect((await create(seller)).valid).toBe(true);
    expect((await create(seller, { urn: 'pokemon/base/nowhere/1' })).valid).toBe(false);
    expect((await create(seller, { price: 0 })).valid).toBe(false);
    expect((await create(seller, { gradingProvider: 'PSA' })).valid).toBe(false);
    expect((await create(seller, { gradingScore: '10' })).valid).toBe(false);
    expect((await create(seller, { gradingProvider: 'BGS', gradingScore: '9.5' })).valid).toBe(true);
  });

  it('refuses malformed input with every bad field listed, and creates nothing', async () => {
    const seller = await registerSeller(api);
    const res = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send(body({ price: 12.5, quantity: -1, condition: 'SHINY', notes: 'x'.repeat(256), reference: 'y'.repeat(256), urn: 'pokemon/' }))
      .expect(400);
    expect(res.body.type).toBe('/problems/validation-failed');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'condition',
      'notes',
      'price',
      'quantity',
      'reference',
      'urn',
    ]);
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM listings WHERE seller_id = $1`, [seller.id]);
    expect(count).toBe(0);
  });

  it('updates through PUT with LISTING_UPDATED; other sellers get 404 and change nothing', async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const listing = await create(seller);
    await api.http
      .put(`/seller/listings/${listing.id}`)
      .set(other.bearer)
      .send(body({ price: 1 }))
      .expect(404);
    const res = await api.http
      .put(`/seller/listings/${listing.id}`)
      .set(seller.bearer)
      .send(body({ price: 999, quantity: 7, hidden: true }))
      .expect(200);
    expect(res.body).toMatchObject({ id: listing.id, price: 999, quantity: 7, hidden: true });
    const updated = await events(seller.id, 'LISTING_UPDATED');
    expect(updated.map((e) => e.data)).toEqual([
      { sellerId: seller.id, createdAt: expect.any(String), urn: items[0]!.urn, listingId: listing.id, quantity: 7, price: 999 },
    ]);
    await api.http.get(`/seller/listings/${listing.id}`).set(other.bearer).expect(404);
  });

  it('answers 409, not 500, when the new quantity is below what checkouts hold', async () => {
    const seller = await registerSeller(api);
    const listing = await create(seller, { quantity: 5 });
    await api.database.db.transaction((tx) => reserveStock(tx, listing.id, 3));
    const res = await api.http
      .put(`/seller/listings/${listing.id}`)
      .set(seller.bearer)
      .send(body({ quantity: 2 }))
      .expect(409);
    expect(res.body.type).toBe('/problems/quantity-below-reserved');
    const after = await api.http.get(`/seller/listings/${listing.id}`).set(seller.bearer).expect(200);
    expect(after.body).toMatchObject({ quantity: 5, available: 2, locked: true });
    expect(await events(seller.id, 'LISTING_UPDATED')).toEqual([]);
  });

  it('deletes with LISTING_DELETED; a held listing is 409; a foreign one is 404', async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const free = await create(seller);
    const held = await create(seller);
    await api.database.db.transaction((tx) => reserveStock(tx, held.id, 1));
    await api.http.delete(`/seller/listings/${free.id}`).set(other.bearer).expect(404);
    await api.http.delete(`/seller/listings/${free.id}`).set(seller.bearer).expect(204);
    await api.http.get(`/seller/listings/${free.id}`).set(seller.bearer).expect(404);
    await api.http.delete(`/seller/listings/${free.id}`).set(seller.bearer).expect(404);
    const locked = await api.http.delete(`/seller/listings/${held.id}`).set(seller.bearer).expect(409);
    expect(locked.body.type).toBe('/problems/listing-locked');
    expect((await events(seller.id, 'LISTING_DELETED')).map((e) => e.data.listingId)).toEqual([free.id]);
  });

  it('refuses callers without a seller account', async () => {
    const user = await registerUser(api);
    await api.http.post('/seller/listings').set(user.bearer).send(body()).expect(403);
  });
});

describe('bulk creation', () => {
  it('creates the well-formed elements, reports the others per item, one LISTING_CREATED per listing', async () => {
    const seller = await registerSeller(api);
    const res = await api.http
      .post('/seller/listings/bulk')
      .set(seller.bearer)
      .send({
        listings: [
          body(),
          body({ price: 'cheap' }),
          body({ urn: items[1]!.urn, quantity: 2 }),
          body({ condition: 'X', language: 'english' }),
        ],
      })
      .expect(200);
    expect(res.body.created).toBe(2);
    expect(res.body.invalid).toBe(2);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['created', 'invalid', 'created', 'invalid']);
    expect(res.body.results[1].errors).toEqual([{ in: 'body', field: 'listings.1.price', message: expect.any(String) }]);
    expect(res.body.results[3].errors.map((e: { field: string }) => e.field)).toEqual(['listings.3.condition', 'listings.3.language']);
    const created = await events(seller.id, 'LISTING_CREATED');
    expect(created.map((e) => e.data.listingId).sort()).toEqual([res.body.results[0].listing.id, res.body.results[2].listing.id].sort());
  });

  it('caps a request at 100 listings', async () => {
    const seller = await registerSeller(api);
    await api.http
      .post('/seller/listings/bulk')
      .set(seller.bearer)
      .send({ listings: Array.from({ length: 101 }, () => body()) })
      .expect(400);
  });
});

describe('stock moved by orders', () => {
  it('emits no LISTING_UPDATED for reserve, release and commit, while PUT does', async () => {
    const seller = await registerSeller(api);
    const listing = await create(seller, { quantity: 4 });
    const db = api.database.db;
    expect(await db.transaction((tx) => reserveStock(tx, listing.id, 3))).toBe(true);
    expect(await db.transaction((tx) => reserveStock(tx, listing.id, 2))).toBe(false);
    expect(await db.transaction((tx) => releaseStock(tx, listing.id, 1))).toBe(true);
    expect(await db.transaction((tx) => commitStock(tx, listing.id, 2))).toBe(true);
    const after = await api.http.get(`/seller/listings/${listing.id}`).set(seller.bearer).expect(200);
    expect(after.body).toMatchObject({ quantity: 2, available: 2, locked: false });
    expect(await events(seller.id, 'LISTING_UPDATED')).toEqual([]);
    await api.http
      .put(`/seller/listings/${listing.id}`)
      .set(seller.bearer)
      .send(body({ quantity: 2 }))
      .expect(200);
    expect(await events(seller.id, 'LISTING_UPDATED')).toHaveLength(1);
  });

  it('never lets two buyers take the last unit', async () => {
    const seller = await registerSeller(api);
    const listing = await create(seller, { quantity: 1 });
    const db = api.database.db;
    const outcomes = await Promise.all([1, 2, 3].map(() => db.transaction((tx) => reserveStock(tx, listing.id, 1))));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });
});

describe('seller listing search', () => {
  let seller: TestUser;
  let rival: TestUser;
  beforeAll(async () => {
    seller = await registerSeller(api);
    rival = await registerSeller(api);
    await create(seller, { urn: items[0]!.urn, price: 50, notes: 'binder-A' });
    await create(seller, { urn: items[1]!.urn, price: 1500, quantity: 12, condition: 'MINT' });
    await create(seller, { urn: items[2]!.urn, price: 20000, hidden: true, gradingProvider: 'PSA', gradingScore: '10' });
    await create(seller, { urn: 'pokemon/base/unknown/9', price: 700, quantity: 0 });
    await create(rival, { urn: items[0]!.urn, price: 60, notes: 'binder-A' });
    await create(rival, { urn: items[3]!.urn, price: 80 });
  });

  const search = (who: TestUser, b: Record<string, unknown>) => api.http.post('/seller/listings/search').set(who.bearer).send(b);

  it("returns only the caller's listings with all fourteen facets counted", async () => {
    const res = await search(seller, {}).expect(200);
    expect(res.body.total).toBe(4);
    expect(res.body.hits.every((h: { sellerId: string }) => h.sellerId === seller.id)).toBe(true);
    expect(Object.keys(res.body.facets).sort()).toEqual([...FACET_KEYS].sort());
    expect(res.body.facets.Valid).toEqual([
      { value: true, count: 3 },
      { value: false, count: 1 },
    ]);
    expect(res.body.facets.Hidden).toEqual(
      expect.arrayContaining([
        { value: true, count: 1 },
        { value: false, count: 3 },
      ]),
    );
    expect(res.body.facets.Availability).toEqual(
      expect.arrayContaining([
        { value: 'In Stock', count: 3 },
        { value: 'Out of Stock', count: 1 },
      ]),
    );
    expect(res.body.facets.Grading).toEqual(
      expect.arrayContaining([
        { value: 'PSA', count: 1 },
        { value: 'Ungraded', count: 3 },
      ]),
    );
    expect(res.body.facets.Price).toEqual(
      expect.arrayContaining([
        { value: '0-99', count: 1 },
        { value: '10000+', count: 1 },
      ]),
    );
    expect(res.body.facets.Quantity).toEqual(
      expect.arrayContaining([
        { value: '10+', count: 1 },
        { value: '0', count: 1 },
      ]),
    );
    expect(res.body.facets.Game).toEqual([{ value: 'Pokémon', count: 3 }]);
    expect(res.body.facets.Category).toEqual([{ value: 'Singles', count: 3 }]);
    expect(res.body.facets.Condition).toEqual(
      expect.arrayContaining([
        { value: 'MINT', count: 1 },
        { value: 'NEAR_MINT', count: 3 },
      ]),
    );
    expect(res.body.facets.Rarity).toEqual([{ value: 'Rare Holo', count: 3 }]);
    expect(res.body.hits[0]).toHaveProperty('notes');
  });

  it('shows each hit as the listing route shows it, item and seller included', async () => {
    const res = await search(seller, {}).expect(200);
    expect(res.body.hits).toHaveLength(4);
    for (const hit of res.body.hits) {
      const own = await api.http.get(`/seller/listings/${hit.id}`).set(seller.bearer).expect(200);
      expect(hit).toEqual(own.body);
    }
    // The listing of a URN outside the catalog has no item; the others carry theirs and the seller.
    expect(res.body.hits.filter((h: { item: unknown }) => h.item === null)).toHaveLength(1);
    expect(res.body.hits.filter((h: { seller: { id: string } }) => h.seller.id === seller.id)).toHaveLength(4);
  });

  it("splices the item and seller into each hit whatever the listing's own text holds", async () => {
    const other = await registerSeller(api);
    const pair = '"item":null,"seller":null';
    await create(other, { urn: items[0]!.urn, comment: pair, notes: `x${pair}`, variants: [{ item: null, seller: null }] });
    const res = await search(other, {}).expect(200);
    const own = await api.http.get(`/seller/listings/${res.body.hits[0].id}`).set(other.bearer).expect(200);
    expect(res.body.hits[0]).toEqual(own.body);
    expect(res.body.hits[0]).toMatchObject({ comment: pair, variants: [{ item: null, seller: null }], seller: { id: other.id } });
    expect(res.body.hits[0].item.urn).toBe(items[0]!.urn);
  });

  it('applies query, facets, filters and paging', async () => {
    const byText = await search(seller, { query: 'BLASTO' }).expect(200);
    expect(byText.body.hits.map((h: { item: { name: string } }) => h.item.name)).toEqual(['Blastoise']);
    const bySku = await search(seller, { query: 'binder-a' }).expect(200);
    expect(bySku.body.total).toBe(1);
    const hiddenOnly = await search(seller, { facets: { Hidden: [true] } }).expect(200);
    expect(hiddenOnly.body.total).toBe(1);
    expect(hiddenOnly.body.facets.Hidden).toEqual([{ value: true, count: 1 }]);
    const cheap = await search(seller, { filters: [{ field: 'price', op: 'lt', value: 1000 }] }).expect(200);
    expect(cheap.body.total).toBe(2);
    const inList = await search(seller, { filters: [{ field: 'condition', op: 'in', value: ['MINT'] }] }).expect(200);
    expect(inList.body.total).toBe(1);
    const page = await search(seller, { from: 1, size: 2 }).expect(200);
    expect(page.body.total).toBe(4);
    expect(page.body.hits).toHaveLength(2);
    const literal = await search(seller, { query: '%' }).expect(200);
    expect(literal.body.total).toBe(0);
  });

  it('cannot be widened to another seller: a Seller facet or seller filter is refused', async () => {
    const facet = await search(rival, { facets: { Seller: [seller.id] } }).expect(400);
    expect(facet.body.errors[0].field).toBe('facets.Seller');
    await search(rival, { filters: [{ field: 'sellerId', op: 'eq', value: seller.id }] }).expect(400);
    await search(rival, { sellerId: seller.id }).expect(400);
    // The rival's own search with the seller's SKU text finds only the rival's listing.
    const res = await search(rival, { query: 'binder-a' }).expect(200);
    expect(res.body.hits.map((h: { sellerId: string }) => h.sellerId)).toEqual([rival.id]);
    const all = await search(rival, { size: 100 }).expect(200);
    expect(all.body.total).toBe(2);
  });

  it('counts a listing change at once, although facet counts are cached', async () => {
    const seller2 = await registerSeller(api);
    const first = await search(seller2, {}).expect(200);
    expect(first.body.total).toBe(0);
    const created = await create(seller2, { condition: 'POOR' });
    const second = await search(seller2, {}).expect(200);
    expect(second.body.total).toBe(1);
    expect(second.body.facets.Condition).toEqual([{ value: 'POOR', count: 1 }]);
    await api.http.delete(`/seller/listings/${created.id}`).set(seller2.bearer).expect(204);
    expect((await search(seller2, {}).expect(200)).body.total).toBe(0);
  });

  it('serves a cached answer until the seller writes; stock held by checkouts may lag (SELLER_SEARCH_CACHE_MS)', async () => {
    const seller2 = await registerSeller(api);
    const listing = await create(seller2, { quantity: 3 });
    expect((await search(seller2, {}).expect(200)).body.hits[0]).toMatchObject({ id: listing.id, locked: false, available: 3 });
    // A checkout's hold moves no listings version: the cached answer stands, as documented.
    await api.database.db.transaction((tx) => reserveStock(tx, listing.id, 1));
    expect((await search(seller2, {}).expect(200)).body.hits[0]).toMatchObject({ locked: false, available: 3 });
    // The seller's own write does, and the next answer is read afresh, hold included.
    await api.http
      .put(`/seller/listings/${listing.id}`)
      .set(seller2.bearer)
      .send(body({ quantity: 3, price: 999 }))
      .expect(200);
    const after = await search(seller2, {}).expect(200);
    expect(after.body.hits[0]).toMatchObject({ id: listing.id, price: 999, locked: true, available: 2 });
    expect(after.body.facets.Price).toEqual([{ value: '500-999', count: 1 }]);
  });

  it('validates filter values by field', async () => {
    const res = await search(seller, { filters: [{ field: 'price', op: 'gt', value: 'abc' }], size: 500 }).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['filters.0.value', 'size']);
  });
});

describe('GET /seller/listings/items', () => {
  it("returns only the caller's stocked listings of the item, available = quantity, lock from holds", async () => {
    const seller = await registerSeller(api);
    const rival = await registerSeller(api);
    const urn = items[2]!.urn;
    const held = await create(seller, { urn, quantity: 3, price: 300 });
    await create(seller, { urn, quantity: 0, price: 100 });
    await create(seller, { urn: items[1]!.urn, quantity: 5 });
    await create(rival, { urn, quantity: 9, price: 10 });
    await api.database.db.transaction((tx) => reserveStock(tx, held.id, 2));
    const res = await api.http.get('/seller/listings/items').query({ urn }).set(seller.bearer).expect(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ id: held.id, quantity: 3, available: 3, locked: true, item: { urn } });
    const none = await api.http.get('/seller/listings/items').query({ urn: items[3]!.urn }).set(seller.bearer).expect(200);
    expect(none.body).toEqual([]);
    await api.http.get('/seller/listings/items').set(seller.bearer).expect(400);
  });
});

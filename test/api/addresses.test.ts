import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { sellerWithListings } from '../support/shop';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const find = (user: TestUser, body: object) => api.http.post('/user/addresses/lookup/find').set(user.bearer).send(body);
const retrieve = (user: TestUser, id: string) => api.http.post('/user/addresses/lookup/retrieve').set(user.bearer).send({ id });
const create = (user: TestUser, body: object) => api.http.post('/user/addresses').set(user.bearer).send(body);

const HOME = { type: 'shipping', line1: 'Mannerheimintie 1', city: 'Helsinki', state: '', postalCode: '00100', country: 'FI' };

describe('assisted address lookup on the embedded data', () => {
  it('finds a postcode, drills down through its streets to addresses, retrieves one and saves it validated', async () => {
    const user = await registerUser(api);
    const postcodes = await find(user, { text: '00100' }).expect(200);
    expect(postcodes.body[0]).toEqual({
      id: 'FI|PC|00100',
      type: 'Container',
      text: '00100',
      highlight: '0-5',
      description: expect.stringMatching(/^Helsinki - \d+ addresses$/),
    });

    const streets = await find(user, { text: '', container: postcodes.body[0].id }).expect(200);
    const aleksanterinkatu = streets.body.find((s: { text: string }) => s.text === 'Aleksanterinkatu');
    expect(aleksanterinkatu).toMatchObject({ type: 'Container', id: 'FI|ST|00100|Aleksanterinkatu' });

    const addresses = await find(user, { text: 'Aleksanterinkatu', container: aleksanterinkatu.id }).expect(200);
    expect(addresses.body.length).toBeGreaterThan(1);
    expect(addresses.body.every((a: { type: string }) => a.type === 'Address')).toBe(true);
    expect(addresses.body[0].highlight).toBe('0-16');

    const full = await retrieve(user, addresses.body[0].id).expect(200);
    expect(Object.keys(full.body)).toHaveLength(32);
    expect(full.body).toMatchObject({
      id: addresses.body[0].id,
      street: 'Aleksanterinkatu',
      city: 'Helsinki',
      postalCode: '00100',
      countryIso2: 'FI',
      countryIso3: 'FIN',
      country: 'Finland',
      poBoxNumber: '',
    });
    expect(full.body.line1).toBe(addresses.body[0].text);

    const saved = await create(user, {
      type: 'shipping',
      line1: full.body.line1,
      city: full.body.city,
      state: full.body.state,
      postalCode: full.body.postalCode,
      country: full.body.countryIso2,
      lookupId: full.body.id,
      isPrimary: true,
    }).expect(201);
    expect(saved.body).toMatchObject({ lookupId: full.body.id, isValidated: true, isPrimary: true, label: '', line2: '' });

    // Edited after lookup: still from lookup, no longer validated.
    const edited = await create(user, { ...HOME, line1: 'Somewhere 99', lookupId: full.body.id }).expect(201);
    expect(edited.body).toMatchObject({ lookupId: full.body.id, isValidated: false });
  });

  it('says what the lookup covers, so an empty answer for a UK postcode is not a mystery', async () => {
    const user = await registerUser(api);
    const res = await find(user, { text: 'SW1A 1AA' }).expect(200);
    expect(res.body).toEqual([]);
    expect(res.headers['address-lookup-coverage']).toMatch(/^FI: central Helsinki only/);
  });

  it('matches street words with a house number straight to addresses, and highlights the match', async () => {
    const user = await registerUser(api);
    const res = await find(user, { text: 'mannerheimintie 1' }).expect(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.every((a: { type: string; text: string }) => a.type === 'Address' && a.text.startsWith('Mannerheimintie 1'))).toBe(
      true,
    );
    expect(res.body[0].highlight).toBe('0-15,16-17');
    expect((await find(user, { text: 'no such street anywhere' }).expect(200)).body).toEqual([]);
    expect((await find(user, { text: '00100', country: ['GB'] }).expect(200)).body).toEqual([]);
  });

  it('refuses an invalid retrieve id, a container id, and a lookupId the user never retrieved', async () => {
    const user = await registerUser(api);
    const bad = await retrieve(user, 'FI|OSM|n0').expect(400);
    expect(bad.body.type).toBe('/problems/lookup-id-invalid');
    await retrieve(user, 'FI|PC|00100').expect(400);
    const forged = await create(user, { ...HOME, lookupId: 'FI|OSM|n3304026698', isValidated: true }).expect(400);
    expect(forged.body.type).toBe('/problems/lookup-id-unknown');
    // isValidated from the client is ignored, never stored.
    const plain = await create(user, { ...HOME, isValidated: true }).expect(201);
    expect(plain.body).toMatchObject({ lookupId: null, isValidated: false });
    // Another user's retrieve does not count for this one.
    const other = await registerUser(api);
    const hit = (await find(other, { text: 'aleksanterinkatu 11' }).expect(200)).body[0];
    await retrieve(other, hit.id).expect(200);
    await create(user, { ...HOME, lookupId: hit.id }).expect(400);
  });
});

describe('saved addresses', () => {
  it("validates every field and lists, reads, updates and deletes only the caller's own", async () => {
    const user = await registerUser(api);
    const bad = await create(user, { type: 'home', line1: '', city: 'x', state: '', postalCode: '', country: 'FIN' }).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['country', 'line1', 'postalCode', 'type']);

    const a = (await create(user, { ...HOME, label: 'Home' }).expect(201)).body;
    const list = await api.http.get('/user/addresses').set(user.bearer).expect(200);
    expect(list.body).toEqual([a]);
    const patched = await api.http.patch(`/user/addresses/${a.id}`).set(user.bearer).send({ label: 'Flat', line2: 'B 12' }).expect(200);
    expect(patched.body).toMatchObject({ label: 'Flat', line2: 'B 12', line1: HOME.line1 });

    const other = await registerUser(api);
    await api.http.get(`/user/addresses/${a.id}`).set(other.bearer).expect(404);
    await api.http.patch(`/user/addresses/${a.id}`).set(other.bearer).send({ label: 'x' }).expect(404);
    await api.http.delete(`/user/addresses/${a.id}`).set(other.bearer).expect(404);
    await api.http.delete(`/user/addresses/${a.id}`).set(user.bearer).expect(204);
    await api.http.get(`/user/addresses/${a.id}`).set(user.bearer).expect(404);
  });

  it('keeps one primary per type: a new primary replaces the old one of its type only', async () => {
    const user = await registerUser(api);
    const ship1 = (await create(user, { ...HOME, isPrimary: true }).expect(201)).body;
    const bill = (await create(user, { ...HOME, type: 'billing', isPrimary: true }).expect(201)).body;
    const ship2 = (await create(user, { ...HOME, line1: 'Kaivokatu 1', isPrimary: true }).expect(201)).body;
    const byId = async () =>
      Object.fromEntries(
        (await api.http.get('/user/addresses').set(user.bearer)).body.map((a: { id: string; isPrimary: boolean }) => [a.id, a.isPrimary]),
      );
    expect(await byId()).toEqual({ [ship1.id]: false, [bill.id]: true, [ship2.id]: true });
    await api.http.patch(`/user/addresses/${ship1.id}`).set(user.bearer).send({ isPrimary: true }).expect(200);
    expect(await byId()).toEqual({ [ship1.id]: true, [bill.id]: true, [ship2.id]: false });
  });

  it('stores at most 10: of 10 concurrent creates on a user with 9, exactly one succeeds', async () => {
    const user = await registerUser(api);
    for (let i = 0; i < 9; i++) await create(user, { ...HOME, label: `a${i}` }).expect(201);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create(user, { ...HOME, label: `race${i}`, isPrimary: true })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    expect(results.find((r) => r.status === 409)!.body.type).toBe('/problems/address-limit-reached');
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM saved_addresses WHERE user_id = $1`, [user.id]);
    expect(count).toBe(10);
    await create(user, HOME).expect(409);
  });
});

describe('baskets and saved addresses', () => {
  it('delivers to a saved address by id, and starts a new basket at the primary shipping address', async () => {
    const shop = await sellerWithListings(api, [{ quantity: 2, price: 1200 }]);
    await api.http
      .post('/seller/delivery-options')
      .set(shop.seller.bearer)
      .send({ name: 'Posti', price: 900, tracked: true, countries: ['FI'] })
      .expect(201);
    const buyer = await registerUser(api);

    const hit = (await find(buyer, { text: 'kaivokatu 1' }).expect(200)).body[0];
    const full = (await retrieve(buyer, hit.id).expect(200)).body;
    const saved = (
      await create(buyer, {
        type: 'shipping',
        name: 'Aino Buyer',
        line1: full.line1,
        city: full.city,
        state: '',
        postalCode: full.postalCode,
        country: 'FI',
        lookupId: full.id,
        isPrimary: true,
      }).expect(201)
    ).body;
    expect(saved.isValidated).toBe(true);

    const basket = (await api.http.get('/basket').set(buyer.bearer).expect(200)).body;
    expect(basket.deliveryAddress).toEqual({
      name: 'Aino Buyer',
      line1: full.line1,
      line2: '',
      city: 'Helsinki',
      state: '',
      postalCode: full.postalCode,
      country: 'FI',
    });

    await api.http.put(`/basket/${basket.id}/items/${shop.listingIds[0]}`).set(buyer.bearer).send({ quantity: 1 }).expect(200);
    const billing = (await create(buyer, { ...HOME, type: 'billing' }).expect(201)).body;
    const summary = await api.http.put(`/basket/${basket.id}/delivery`).set(buyer.bearer).send({ addressId: billing.id }).expect(200);
    expect(summary.body.deliveryAddress).toMatchObject({ name: buyer.username, line1: HOME.line1, country: 'FI' });
    expect(summary.body.failingListingIds).toEqual([]);
    expect(summary.body.sellers[0].deliveryOption).toMatchObject({ name: 'Posti', price: 900 });

    const stranger = await registerUser(api);
    const theirs = (await create(stranger, HOME).expect(201)).body;
    await api.http.put(`/basket/${basket.id}/delivery`).set(buyer.bearer).send({ addressId: theirs.id }).expect(404);
    const both = await api.http
      .put(`/basket/${basket.id}/delivery`)
      .set(buyer.bearer)
      .send({ addressId: saved.id, address: { name: 'x' } })
      .expect(400);
    expect(both.body.type).toBe('/problems/validation-failed');
  });
});

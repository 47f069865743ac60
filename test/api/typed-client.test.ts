import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { apiClient, type ApiClient } from '../support/client';
import { seedCatalog, type FixtureItem } from '../support/fixtures';

/**
 * A seller and a buyer through the generated client only: every request and answer below is
 * typed from /openapi.json, so a field renamed, a status changed or a schema narrowed breaks
 * either the build (type-check) or an assertion here.
 */
let api: TestApi;
let anonymous: ApiClient;
let items: FixtureItem[];
beforeAll(async () => {
  api = await startTestApi();
  anonymous = apiClient(api);
  ({ items } = await seedCatalog(api.database.db, { names: ['Alakazam', 'Blastoise'] }));
});
afterAll(() => api.close());

describe('the API through the generated client', () => {
  it('registers and signs in; a wrong password is a typed OAuth error', async () => {
    const registered = await anonymous.POST('/auth/register', {
      body: { email: `typed${process.pid}@example.com`, username: `typed${process.pid}`, password: 'correct horse battery' },
    });
    expect(registered.response.status).toBe(201);
    const user = registered.data!.user;
    expect(user).toMatchObject({ email: `typed${process.pid}@example.com`, id: expect.any(String) });

    const token = await anonymous.POST('/oauth/token', {
      body: { grant_type: 'password', username: user.username, password: 'correct horse battery' },
    });
    expect(token.data).toMatchObject({ token_type: 'Bearer', expires_in: 900 });

    const wrong = await anonymous.POST('/oauth/token', {
      body: { grant_type: 'password', username: user.username, password: 'not the password' },
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });

    const refreshed = await anonymous.POST('/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: token.data!.refresh_token },
    });
    expect(refreshed.data!.refresh_token).not.toBe(token.data!.refresh_token);
  });

  it('manages personal access tokens and uses one as an API key', async () => {
    const user = await registerUser(api, 'typedpat');
    const client = apiClient(api, user.bearer);
    const created = await client.POST('/user/personal-access-tokens', { body: { name: 'stock-sync' } });
    expect(created.response.status).toBe(201);
    expect(created.data!.token).toMatch(/^mts_pat_/);

    const listed = await client.GET('/user/personal-access-tokens');
    expect(listed.data!.map((t) => t.name)).toEqual(['stock-sync']);

    const withKey = apiClient(api, { Authorization: `ApiKey ${created.data!.token}` });
    const onboarded = await withKey.POST('/seller');
    expect(onboarded.response.status).toBe(201);
    const status = await withKey.GET('/seller/status');
    expect(status.data).toMatchObject({ userId: user.id, status: 'ACTIVE' });

    // Account-security routes take only the user's own token: a typed Problem says so.
    const refused = await withKey.GET('/user/personal-access-tokens');
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ type: '/problems/bearer-token-required', status: 403 });

    const deleted = await client.DELETE('/user/personal-access-tokens', { body: { name: 'stock-sync' } });
    expect(deleted.response.status).toBe(204);
  });

  it('creates listings one by one and in bulk, finds them, and reads problems for bad input', async () => {
    const seller = await registerSeller(api, 'typedseller');
    const client = apiClient(api, seller.bearer);
    const one = await client.POST('/seller/listings', {
      body: { urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: 1250, quantity: 2, notes: 'SKU-1' },
    });
    expect(one.response.status).toBe(201);
    expect(one.data).toMatchObject({ price: 1250, quantity: 2, valid: true, notes: 'SKU-1', item: { urn: items[0]!.urn } });

    const bulk = await client.POST('/seller/listings/bulk', {
      body: {
        listings: [
          { urn: items[1]!.urn, condition: 'EXCELLENT', language: 'en', price: 800, quantity: 1 },
          { urn: items[1]!.urn, condition: 'EXCELLENT', language: 'english', price: -1, quantity: 1 },
        ],
      },
    });
    expect(bulk.data).toMatchObject({ created: 1, invalid: 1 });
    expect(bulk.data!.results[1]).toMatchObject({ index: 1, status: 'invalid' });

    const found = await anonymous.POST('/listings/item', { body: { urn: items[0]!.urn, sort: 'price' } });
    expect(found.data!.total).toBe(1);
    expect(found.data!.hits[0]).toMatchObject({ id: one.data!.id, price: 1250 });

    const bySlug = await anonymous.POST('/listings/item', { body: { slug: 'no-such-item', size: 5 } });
    expect(bySlug.data).toEqual({ total: 0, hits: [] });

    const invalid = await client.POST('/seller/listings', {
      body: { urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: -5, quantity: 1 },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toMatchObject({ type: '/problems/validation-failed', errors: [{ in: 'body', field: 'price' }] });

    const missing = await client.GET('/seller/listings/{id}', { params: { path: { id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ type: '/problems/not-found' });
  });

  it('registers a webhook endpoint with custom headers (a map in the document)', async () => {
    const seller = await registerSeller(api, 'typedhook');
    const client = apiClient(api, seller.bearer);
    const created = await client.POST('/seller/webhooks', {
      body: { url: 'https://hooks.example.com/marketplace', subscriptions: ['LISTING_CREATED'], headers: { 'X-Shop': 'north' } },
    });
    expect(created.response.status).toBe(201);
    // Header names are stored lower-cased (HTTP header names are case-insensitive).
    expect(created.data).toMatchObject({ headers: { 'x-shop': 'north' }, secret: expect.stringMatching(/^whsec_/) });
    const read = await client.GET('/seller/webhooks/{webhookId}', { params: { path: { webhookId: created.data!.id } } });
    expect(read.data!.headers).toEqual({ 'x-shop': 'north' });
  });

  it('fills a basket and reads it back', async () => {
    const seller = await registerSeller(api, 'typedbasketseller');
    const listing = await apiClient(api, seller.bearer).POST('/seller/listings', {
      body: { urn: items[1]!.urn, condition: 'NEAR_MINT', language: 'en', price: 900, quantity: 4 },
    });
    const buyer = await registerUser(api, 'typedbuyer');
    const client = apiClient(api, buyer.bearer);
    const basket = await client.GET('/basket');
    expect(basket.response.status).toBe(200);
    const added = await client.PUT('/basket/{id}/items/{listingId}', {
      params: { path: { id: basket.data!.id, listingId: listing.data!.id } },
      body: { quantity: 2 },
    });
    expect(added.data).toMatchObject({ lines: [{ listingId: listing.data!.id, quantity: 2 }] });
    const summary = await client.GET('/basket/{id}/summary', { params: { path: { id: basket.data!.id } } });
    expect(summary.response.status).toBe(200);
    expect(JSON.stringify(summary.data)).toContain(listing.data!.id);
  });
});

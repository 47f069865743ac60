import { connectAndMigrate } from '../../src/db/data-source';
import { User } from '../../src/db/entities';
import type { ReplicaState } from '../../src/db/read-router';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import type { TestDatabase } from '../support/database';
import { seedCatalog } from '../support/fixtures';
import { eventually } from '../support/stack';
import { startStreamingPair, type StreamingPair } from '../support/streaming-replica';

/**
 * Reads routed to a real streaming replica (docs/replicas.md): a primary and a hot standby
 * started here from the machine's PostgreSQL binaries. Lag is made, not waited for: replay is
 * paused on the replica, so it lacks every write after the pause until it is resumed.
 */

let pair: StreamingPair;
let database: TestDatabase;
/** Its lag bound is ten minutes: a paused replica stays healthy, so what it serves shows its lag. */
let patient: TestApi;
/** Its lag bound is 300 ms: a paused replica is skipped soon after the next write. */
let strict: TestApi;
/** Checks its replica only when asked (every ten minutes): what it does when a replica vanishes is its reads' doing, not a check's. */
let unchecked: TestApi;

const CHECK_MS = '50';

beforeAll(async () => {
  pair = await startStreamingPair();
  const db = await connectAndMigrate({ url: pair.primaryUrl, poolSize: 5 });
  // The pair is this file's own; `pair.close()` removes it.
  database = { url: pair.primaryUrl, db, close: async () => undefined };
  const replicas = { DATABASE_REPLICA_URLS: pair.replicaUrl, DATABASE_REPLICA_CHECK_MS: CHECK_MS };
  patient = await startTestApi({ database, env: { ...replicas, DATABASE_REPLICA_MAX_LAG_MS: '600000', DISCOVER_CACHE_MS: '30000' } });
  strict = await startTestApi({ database, env: { ...replicas, DATABASE_REPLICA_MAX_LAG_MS: '300' } });
  unchecked = await startTestApi({ database, env: { ...replicas, DATABASE_REPLICA_CHECK_MS: '600000' } });
}, 120_000);

afterAll(async () => {
  try {
    await patient?.close();
    await strict?.close();
    await unchecked?.close();
    await database?.db.destroy();
  } finally {
    await pair?.close();
  }
});

afterEach(async () => {
  // A failed test must not leave the next one a paused replica.
  await pair.resumeReplay().catch(() => undefined);
});

const stateOf = (api: TestApi): ReplicaState => api.services.readRouter.status()[0]!.state;
const routedTo = (api: TestApi, database: string) => api.services.readRouter.routed().get(database) ?? 0;
const replicaName = (api: TestApi) => api.services.readRouter.status()[0]!.name;

/** Until the replica has replayed everything written so far and `api` routes to it. */
async function replicaInUse(api: TestApi): Promise<void> {
  await eventually(async () => {
    if (!(await pair.caughtUp())) return null;
    // The first may be a check already under way, begun before the replica caught up; the second begins after.
    await api.services.readRouter.check();
    await api.services.readRouter.check();
    return stateOf(api) === 'healthy' || null;
  });
}

const profileStatus = async (api: TestApi, username: string) =>
  (await apiClient(api).GET('/profile/{identifier}', { params: { path: { identifier: username } } })).response.status;

describe('reads on a streaming replica', () => {
  it('serves public reads from a healthy replica: a user the paused replica lacks is not found there', async () => {
    const known = await registerUser(patient, 'known');
    await replicaInUse(patient);
    await pair.pauseReplay();
    const unreplayed = await registerUser(patient, 'unreplayed');

    expect(await pair.queryReplica('SELECT 1 FROM users WHERE id = $1', [unreplayed.id])).toEqual([]);
    const before = routedTo(patient, replicaName(patient));
    expect(await profileStatus(patient, known.username)).toBe(200);
    // Answered by the replica, which lacks the user: the primary would have found them.
    expect(await profileStatus(patient, unreplayed.username)).toBe(404);
    expect(routedTo(patient, replicaName(patient))).toBe(before + 2);

    await pair.resumeReplay();
    await eventually(async () => (await profileStatus(patient, unreplayed.username)) === 200 || null);
  });

  it('shows a seller their own new listing in their own search at once, while the replica lacks it', async () => {
    const seller = await registerSeller(patient);
    const { items } = await seedCatalog(database.db, { names: ['Pikachu'] });
    const client = apiClient(patient, seller.bearer);
    await replicaInUse(patient);
    expect(await dataOf(client.POST('/seller/listings/search', { body: {} }))).toMatchObject({ total: 0 });

    await pair.pauseReplay();
    const listing = await dataOf(
      client.POST('/seller/listings', { body: { urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: 990, quantity: 1 } }),
      201,
    );
    const found = await dataOf(client.POST('/seller/listings/search', { body: {} }));
    expect(found.total).toBe(1);
    expect(found.hits[0]).toMatchObject({ id: listing.id });
    expect(await pair.queryReplica('SELECT 1 FROM listings WHERE id = $1', [listing.id])).toEqual([]);
  });

  it('refills a Discover cache after a change from where the change is, never from a replica without it', async () => {
    const seller = await registerSeller(patient);
    const { items } = await seedCatalog(database.db, { names: ['Eevee'] });
    const urn = items[0]!.urn;
    const client = apiClient(patient, seller.bearer);
    const create = (price: number) =>
      dataOf(client.POST('/seller/listings', { body: { urn, condition: 'NEAR_MINT', language: 'en', price, quantity: 1 } }), 201);
    const listed = async () => (await dataOf(apiClient(patient).POST('/listings/item', { body: { urn } }))).total;
    await create(500);
    await replicaInUse(patient);
    // The answer is now cached.
    expect(await listed()).toBe(1);

    await pair.pauseReplay();
    await create(600);
    // The change notification makes the cache forget the item; the refill must not come from the paused replica.
    await eventually(async () => (await listed()) === 2 || null);
    expect(await pair.queryReplica('SELECT count(*)::int AS n FROM listings WHERE item_urn = $1', [urn])).toEqual([{ n: 1 }]);

    await pair.resumeReplay();
    await replicaInUse(patient);
    expect(await listed()).toBe(2);
  });

  it('refills what a change did not touch from the replica while the change is not replayed there', async () => {
    const seller = await registerSeller(patient);
    const { items } = await seedCatalog(database.db, { names: ['Snorlax', 'Jigglypuff'] });
    const [changed, untouched] = items.map((item) => item.urn) as [string, string];
    const client = apiClient(patient, seller.bearer);
    const create = (urn: string) =>
      dataOf(client.POST('/seller/listings', { body: { urn, condition: 'NEAR_MINT', language: 'en', price: 700, quantity: 1 } }), 201);
    const listed = async (urn: string) => (await dataOf(apiClient(patient).POST('/listings/item', { body: { urn } }))).total;
    const search = (sort: 'relevance' | 'price') =>
      dataOf(apiClient(patient).GET('/search', { params: { query: { q: 'Jigglypuff', sort } } }));
    await create(changed);
    await create(untouched);
    await replicaInUse(patient);

    await pair.pauseReplay();
    await create(changed);
    // The changed item is refilled where its change is: the primary.
    await eventually(async () => (await listed(changed)) === 2 || null);
    expect(await pair.queryReplica('SELECT count(*)::int AS n FROM listings WHERE item_urn = $1', [changed])).toEqual([{ n: 1 }]);

    // The untouched item's listings and view, and a ranking by relevance (the catalog did not
    // change), are first read now, and from the replica.
    const replica = routedTo(patient, replicaName(patient));
    expect(await listed(untouched)).toBe(1);
    expect(routedTo(patient, replicaName(patient))).toBeGreaterThan(replica);
    const afterListings = routedTo(patient, replicaName(patient));
    expect((await search('relevance')).items.map((item) => item.urn)).toEqual([untouched]);
    expect(routedTo(patient, replicaName(patient))).toBeGreaterThan(afterListings);

    // A ranking by price depends on every item's prices: it waits for the replica to replay every change.
    const primary = routedTo(patient, 'primary');
    expect((await search('price')).items.map((item) => item.urn)).toEqual([untouched]);
    expect(routedTo(patient, 'primary')).toBeGreaterThan(primary);
  });

  it('skips a replica that lags beyond the bound, and reads from it again once it has caught up', async () => {
    await replicaInUse(strict);
    await pair.pauseReplay();
    const user = await registerUser(strict, 'lagged');
    await eventually(async () => stateOf(strict) === 'lagging' || null);
    const [replica, primaryBefore] = [routedTo(strict, replicaName(strict)), routedTo(strict, 'primary')];
    expect(await profileStatus(strict, user.username)).toBe(200);
    expect(routedTo(strict, 'primary')).toBe(primaryBefore + 1);
    expect(routedTo(strict, replicaName(strict))).toBe(replica);
    const metrics = await strict.metrics.registry.metrics();
    expect(metrics).toContain(`db_replica_state{replica="${replicaName(strict)}",state="lagging"} 1`);
    expect(metrics).toMatch(/db_replica_lag_seconds\{replica="[^"]+"\} (0\.[3-9]|[1-9])/);

    await pair.resumeReplay();
    await replicaInUse(strict);
    const primaryAfter = routedTo(strict, 'primary');
    expect(await profileStatus(strict, user.username)).toBe(200);
    expect(routedTo(strict, replicaName(strict))).toBe(replica + 1);
    expect(routedTo(strict, 'primary')).toBe(primaryAfter);
  });

  it('answers from the primary when the replica is down, and from the replica when it is back', async () => {
    const user = await registerUser(strict, 'outage');
    const seller = await registerSeller(unchecked);
    for (const api of [strict, unchecked]) await replicaInUse(api);

    await pair.stopReplica();
    // No check has run since: each read finds the replica gone and is served by the primary.
    // First a repository's query builder rather than a raw query: the fallback is in the connection, whatever API a service reads with.
    await expect(unchecked.services.readRouter.lagging.getRepository(User).countBy({ id: user.id })).resolves.toBe(1);
    await expectStatus(apiClient(unchecked).GET('/profile/{identifier}/reviews', { params: { path: { identifier: user.username } } }), 200);
    await expectStatus(apiClient(unchecked, seller.bearer).POST('/seller/listings/search', { body: {} }), 200);
    expect(await profileStatus(unchecked, user.username)).toBe(200);
    await expectStatus(apiClient(unchecked).GET('/search', { params: { query: { q: 'pikachu' } } }), 200);
    expect(stateOf(unchecked)).toBe('down');

    const primaryBefore = routedTo(strict, 'primary');
    await eventually(async () => stateOf(strict) === 'down' || null);
    expect(await profileStatus(strict, user.username)).toBe(200);
    expect(routedTo(strict, 'primary')).toBe(primaryBefore + 1);
    expect(await strict.metrics.registry.metrics()).toContain(`db_replica_state{replica="${replicaName(strict)}",state="down"} 1`);

    await pair.startReplica();
    await replicaInUse(strict);
    const replica = routedTo(strict, replicaName(strict));
    expect(await profileStatus(strict, user.username)).toBe(200);
    expect(routedTo(strict, replicaName(strict))).toBe(replica + 1);

    // Discover's prepared statements (item views, an item's listings) take their connection from
    // the driver's pool, not through a method the router wraps: the first read after the replica
    // goes is one of them.
    const { items } = await seedCatalog(database.db, { names: ['Mew'] });
    await replicaInUse(unchecked);
    await pair.stopReplica();
    await expectStatus(apiClient(unchecked).POST('/search/lookup/bulk', { body: { urns: [items[0]!.urn] } }), 200);
    await expectStatus(apiClient(unchecked).POST('/listings/item', { body: { urn: items[0]!.urn } }), 200);
    expect(stateOf(unchecked)).toBe('down');
    await pair.startReplica();
  });
});

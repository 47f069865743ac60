import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import type { WorkerGroup } from '../../worker/worker-group';
import supertest from 'supertest';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { createLogger } from '../../src/logger';
import { createWorkerMetrics, type WorkerMetrics } from '../../src/observability/worker-metrics';
import { EVENT_TYPES } from '../../src/services/events/outbox';
import type { StartDispatcher } from '../../src/services/workflow-starts/dispatcher';
import { casesWorkflowIds } from '../../src/modules/cases';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../scripts/round-robin-proxy';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { apiClient, dataOf, expectStatus, type Schemas } from '../support/client';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { seedCatalog } from '../support/fixtures';
import { recordReplayHistories } from '../support/replay-histories';
import { checkoutUrl, disputeFirstItem, fillBasket, pay, sellerWithListings } from '../support/shop';
import { eventually } from '../support/stack';
import { devServerEnv, freePort, testDataConverter, workflowBundle } from '../support/temporal';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The deployment's shape, natively: one Temporal dev server and one database; two API processes
 * behind the round-robin proxy (scripts/round-robin-proxy.ts, what `API_REPLICAS=2 npm start`
 * runs) and two workers, each with its own start dispatcher, connections and pool, as separate
 * processes would have. Everything below goes through the proxy unless it is about one replica.
 */

// The per-process caches as production configures them (their documented defaults).
const DISCOVER_CACHE_MS = 2000;
const SELLER_SEARCH_CACHE_MS = 5000;
/**
 * Both Discover caches serve an expired answer while a single refresh runs, so their documented
 * bound is the TTL plus one query (docs/discover.md): this is the allowance for that one query,
 * generous because the machine running the tests may be busy; a cache that kept answers past
 * their TTL, or never refreshed them, still fails.
 */
const ONE_QUERY_MS = 5000;

/**
 * Reads until `isFresh`, and fails if a read that began more than `boundMs` after `since` still
 * answers stale: the cache may serve the old value for up to the bound and never after it. The
 * judgement is on when each read began, so a slow machine delays the reads, not the verdict.
 */
async function freshWithin(since: number, boundMs: number, isFresh: () => Promise<boolean>): Promise<number> {
  for (;;) {
    const began = Date.now();
    if (await isFresh()) return began - since;
    if (began - since > boundMs) throw new Error(`still stale ${began - since} ms after the change; the bound is ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface WorkerReplica {
  worker: WorkerGroup;
  running: Promise<void>;
  dispatcher: StartDispatcher;
  metrics: WorkerMetrics;
  close(): Promise<void>;
}

let env: TestWorkflowEnvironment;
let database: TestDatabase;
let apis: TestApi[];
let workers: WorkerReplica[];
let proxy: RoundRobinProxy;
/** The public address: the proxy, as a TestApi the shared helpers accept. */
let pub: TestApi;
const pools: DataSource[] = [];

/** A pool of its own, as another process would have. */
async function pool(): Promise<DataSource> {
  const db = createDataSource({ url: database.url, poolSize: 5 });
  await db.initialize();
  pools.push(db);
  return db;
}

async function startWorkerReplica(config: TestApi['config']): Promise<WorkerReplica> {
  const db = await pool();
  const connection = await NativeConnection.connect({ address: env.address });
  const clientConnection = await Connection.connect({ address: env.address });
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace, dataConverter: testDataConverter });
  const metrics = createWorkerMetrics(db);
  const worker = await createWorker({ config, db, connection, workflowBundle: await workflowBundle(), metrics });
  const running = worker.run();
  const dispatcher = createStartDispatcher(config, db, client, createLogger('silent', 'start-dispatcher'), metrics);
  dispatcher.start();
  return {
    worker,
    running,
    dispatcher,
    metrics,
    close: async () => {
      await dispatcher.stop();
      worker.shutdown();
      await running;
      await clientConnection.close();
      await connection.close();
    },
  };
}

beforeAll(async () => {
  env = await devServerEnv();
  database = await createTestDatabase();
  const publicPort = await freePort();
  const overrides = {
    // Every replica names the proxy as its public address (hosted payment pages, OAuth issuer).
    PUBLIC_BASE_URL: `http://127.0.0.1:${publicPort}`,
    DISCOVER_CACHE_MS: String(DISCOVER_CACHE_MS),
    SELLER_SEARCH_CACHE_MS: String(SELLER_SEARCH_CACHE_MS),
    WORKFLOW_START_INTERVAL: '500ms',
  };
  const second: TestDatabase = { url: database.url, db: await pool(), close: async () => undefined };
  apis = [
    await startTestApi({ temporal: env.client, database, env: overrides }),
    await startTestApi({
      temporal: new Client({ connection: env.connection, namespace: env.namespace, dataConverter: testDataConverter }),
      database: second,
      env: overrides,
    }),
  ];
  workers = [await startWorkerReplica(apis[0]!.config), await startWorkerReplica(apis[1]!.config)];
  proxy = await startRoundRobinProxy({ targets: apis.map((a) => a.baseUrl), port: publicPort });
  // The calls below go to `baseUrl`; TestApi also carries an agent, so it too points at the proxy.
  pub = { ...apis[0]!, http: supertest.agent(proxy.url), baseUrl: proxy.url };
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  for (const w of workers ?? []) await w.close();
  if (env) await recordReplayHistories(env.client);
  for (const api of apis ?? []) await api.close();
  for (const db of pools) await db.destroy();
  await database?.close();
  await env?.teardown();
}, 60_000);

const db = () => database.db;

/** `workflow_starts_total` of one worker replica, summed over workflow types, by result. */
async function startsBy(metrics: WorkerMetrics): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const v of (await metrics.workflowStarts.get()).values) {
    const result = String(v.labels.result);
    totals[result] = (totals[result] ?? 0) + v.value;
  }
  return totals;
}

/** Reads until `done` holds or `timeoutMs` pass, and returns the last value read (for an exact expect). */
async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every start intent stamped: the outbox is drained. */
const outboxDrained = async () => {
  const [row] = await db().query(
    `SELECT (SELECT count(*)::int FROM workflow_starts WHERE started_at IS NULL) AS starts,
            (SELECT count(*)::int FROM outbox_events WHERE dispatched_at IS NULL) AS events`,
  );
  return row.starts === 0 && row.events === 0 ? true : null;
};

describe('two APIs behind the round-robin proxy, two workers with their dispatchers', () => {
  it('checkouts, payments, webhooks and a case: orders for every payment, each event once per endpoint, starts split and never doubled', async () => {
    const shopA = await sellerWithListings(pub, [{ quantity: 20, price: 1200 }]);
    const shopB = await sellerWithListings(pub, [{ quantity: 20, price: 800 }]);
    // Seller A has two endpoints, B one; each on its own receiver (one signing secret each).
    const receivers = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start(), WebhookReceiver.start()]);
    try {
      const subscribed = { subscriptions: [...EVENT_TYPES] };
      const endpoints = [
        { seller: shopA.seller, receiver: receivers[0]!, ...(await receivers[0]!.register(pub, shopA.seller, subscribed)) },
        { seller: shopA.seller, receiver: receivers[1]!, ...(await receivers[1]!.register(pub, shopA.seller, subscribed)) },
        { seller: shopB.seller, receiver: receivers[2]!, ...(await receivers[2]!.register(pub, shopB.seller, subscribed)) },
      ];

      // A burst in one commit: 60 LISTING_CREATED events fan out to 120 deliveries, more than one
      // dispatcher claims in a pass, so both replicas' dispatchers share it.
      const { items } = await seedCatalog(db(), { names: ['Burst'] });
      const bulk = Array.from({ length: 60 }, (_, i): Schemas['ListingInput'] => ({
        urn: items[0]!.urn,
        condition: 'NEAR_MINT',
        language: 'en',
        price: 100 + i,
        quantity: 1,
      }));
      const created = await dataOf(apiClient(pub, shopA.seller.bearer).POST('/seller/listings/bulk', { body: { listings: bulk } }));
      expect(created.created).toBe(60);

      // Twelve buyers at once, each buying from both sellers: checkout and payment alternate replicas.
      const buyers = await Promise.all(Array.from({ length: 12 }, () => registerUser(pub, 'replica')));
      const purchaseIds = await Promise.all(
        buyers.map(async (buyer) => {
          const basketId = await fillBasket(pub, buyer, [{ listingId: shopA.listingIds[0]! }, { listingId: shopB.listingIds[0]! }]);
          const url = await checkoutUrl(pub, buyer, basketId, 'https://shop.example/thanks');
          expect(new URL(url).origin).toBe(proxy.url);
          return pay(pub, url);
        }),
      );

      // Every paid checkout has its two orders, whichever replica answers.
      expect(new Set(purchaseIds).size).toBe(12);
      const purchaseOf = (buyer: TestUser, id: string) =>
        dataOf(apiClient(pub, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id } } }));
      for (const [i, purchaseId] of purchaseIds.entries()) {
        const purchase = await purchaseOf(buyers[i]!, purchaseId);
        expect(purchase.orders.map((o) => o.sellerId).sort()).toEqual([shopA.seller.id, shopB.seller.id].sort());
      }
      const [{ orders }] = await db().query(`SELECT count(*)::int AS orders FROM orders WHERE purchase_id = ANY($1)`, [purchaseIds]);
      expect(orders).toBe(24);
      const stock = await db().query(`SELECT quantity, reserved FROM listings WHERE id = ANY($1) ORDER BY price DESC`, [
        [shopA.listingIds[0], shopB.listingIds[0]],
      ]);
      expect(stock).toEqual([
        { quantity: 8, reserved: 0 },
        { quantity: 8, reserved: 0 },
      ]);

      // A case action through the proxy: a dispute opens the case, the seller's proposal is a
      // synchronous Update from whichever API replica takes it.
      const buyer = buyers[0]!;
      const purchase = await purchaseOf(buyer, purchaseIds[0]!);
      const order = purchase.orders.find((o) => o.sellerId === shopB.seller.id)!;
      const opened = await disputeFirstItem(pub, buyer, { purchaseId: purchase.id, order }, 'Bent corner');
      await eventually(async () =>
        (
          await db().query(`SELECT 1 FROM workflow_starts WHERE workflow_id = $1 AND started_at IS NOT NULL`, [
            casesWorkflowIds.case(opened.id),
          ])
        ).length
          ? true
          : null,
      );
      const theCase = { params: { path: { id: opened.id } } };
      const proposed = await dataOf(
        apiClient(pub, shopB.seller.bearer).PUT('/seller/cases/{id}', {
          ...theCase,
          body: { action: 'propose', type: 'REFUND', amount: 800, comment: 'Refund' },
        }),
      );
      expect(proposed.outcomes).toEqual([expect.objectContaining({ type: 'REFUND', party: 'SELLER', status: 'PENDING', amount: 800 })]);
      const outcomeId = proposed.outcomes[0]!.id;
      const accepted = await dataOf(
        apiClient(pub, buyer.bearer).PUT('/user/cases/{id}', { ...theCase, body: { action: 'accept', outcomeId } }),
      );
      expect(accepted).toMatchObject({ status: 'CLOSED', outcomes: [{ id: outcomeId, status: 'ACCEPTED' }] });

      // Each event of the seller reaches each of their endpoints exactly once.
      // Quiet: every intent started and every workflow finished (deliveries, the case, its refund).
      const quiet = await settled(
        async () => {
          const running: string[] = [];
          for await (const w of env.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) running.push(w.workflowId);
          return { drained: (await outboxDrained()) === true, running };
        },
        (state) => state.drained && state.running.length === 0,
        180_000,
      );
      expect(quiet).toEqual({ drained: true, running: [] });
      for (const endpoint of endpoints) {
        const events: Array<{ id: string }> = await db().query(`SELECT id FROM outbox_events WHERE seller_id = $1`, [endpoint.seller.id]);
        const expected = events.map((e) => e.id).sort();
        // A: 60 listings and 12 orders; B: 12 orders and the case.
        expect(expected.length).toBeGreaterThanOrEqual(endpoint.seller === shopA.seller ? 72 : 13);
        await eventually(async () => (endpoint.receiver.verified.length >= expected.length ? true : null), 120_000);
        const ids = endpoint.receiver.verified.map((r) => String(r.headers['webhook-id']));
        expect(ids.sort()).toEqual(expected);
        expect(endpoint.receiver.received).toHaveLength(expected.length);
        const delivered = await settled(
          () =>
            db().query(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status`, [
              endpoint.id,
            ]) as Promise<Array<{ status: string; n: number }>>,
          (rows) => rows.length === 1 && rows[0]!.status === 'SUCCEEDED',
          60_000,
        );
        expect(delivered).toEqual([{ status: 'SUCCEEDED', n: expected.length }]);
      }

      // The starts were split between the dispatchers, not doubled: each intent was made by one
      // of them, once, and Temporal holds exactly one run per workflow id.
      const perDispatcher = await Promise.all(workers.map((w) => startsBy(w.metrics)));
      for (const counts of perDispatcher) expect(counts.started ?? 0).toBeGreaterThan(0);
      const [rows] = await db().query(
        `SELECT count(*)::int AS intents, count(DISTINCT workflow_id)::int AS ids, sum(attempts)::int AS attempts FROM workflow_starts`,
      );
      const made = perDispatcher.reduce((sum, c) => sum + (c.started ?? 0) + (c.existing ?? 0), 0);
      const failed = perDispatcher.reduce((sum, c) => sum + (c.failed ?? 0), 0);
      expect(made).toBe(rows.intents);
      expect(made + failed).toBe(rows.attempts);
      const runs = await settled(
        async () => {
          const listed: string[] = [];
          for await (const execution of env.client.workflow.list()) listed.push(execution.workflowId);
          return listed;
        },
        (listed) => listed.length >= rows.ids,
        30_000,
      );
      const perId = new Map<string, number>();
      for (const id of runs) perId.set(id, (perId.get(id) ?? 0) + 1);
      expect([...perId.values()].filter((n) => n !== 1)).toEqual([]);
      const intended: Array<{ workflow_id: string }> = await db().query(`SELECT DISTINCT workflow_id FROM workflow_starts`);
      expect([...perId.keys()].sort()).toEqual(intended.map((r) => r.workflow_id).sort());
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
    }
  }, 600_000);

  it('the proxy alternates between the replicas', async () => {
    const before = [...proxy.counts];
    for (let i = 0; i < 4; i += 1) await expectStatus(apiClient(pub).GET('/healthz'), 200);
    expect(proxy.counts.map((n, i) => n - before[i]!)).toEqual([2, 2]);
  });
});

describe('per-process caches across replicas', () => {
  let seller: TestUser;
  let listingId: string;
  let urn: string;
  const listingBody = (price: number): Schemas['ListingInput'] => ({ urn, condition: 'NEAR_MINT', language: 'en', price, quantity: 3 });
  const theListing = () => ({ params: { path: { id: listingId } } });

  beforeAll(async () => {
    seller = await registerSeller(apis[0]!, 'cacheseller');
    urn = (await seedCatalog(db(), { names: ['Cached'] })).items[0]!.urn;
    listingId = (await dataOf(apiClient(apis[0]!, seller.bearer).POST('/seller/listings', { body: listingBody(500) }), 201)).id;
  });

  it('a price change through API 1 shows in API 2’s Discover answers within DISCOVER_CACHE_MS plus one query', async () => {
    const [one, two] = apis as [TestApi, TestApi];
    const search = async () => (await dataOf(apiClient(two).POST('/listings/item', { body: { urn } }))).hits[0]?.price;
    const lookup = async () => (await dataOf(apiClient(two).POST('/search/lookup/bulk', { body: { urns: [urn] } })))[0]?.price;
    // API 2 holds both answers in memory.
    expect(await search()).toBe(500);
    expect(await lookup()).toBe(500);

    // Anything API 2 cached was cached before this instant, so it expires within the TTL of it.
    const since = Date.now();
    await expectStatus(apiClient(one, seller.bearer).PUT('/seller/listings/{id}', { ...theListing(), body: listingBody(900) }), 200);
    await Promise.all([
      freshWithin(since, DISCOVER_CACHE_MS + ONE_QUERY_MS, async () => (await lookup()) === 900),
      freshWithin(since, DISCOVER_CACHE_MS + ONE_QUERY_MS, async () => (await search()) === 900),
    ]);
  });

  it("a seller's own listing change through API 1 shows at once in API 2's seller search and seller stats", async () => {
    const [one, two] = apis as [TestApi, TestApi];
    const search = () => dataOf(apiClient(two, seller.bearer).POST('/seller/listings/search', { body: { query: '' } }));
    const stats = async () => (await dataOf(apiClient(two, seller.bearer).GET('/seller/stats'))).listings.total;
    const total = (await search()).total;
    const listed = await stats();

    const asOne = apiClient(one, seller.bearer);
    await expectStatus(asOne.PUT('/seller/listings/{id}', { ...theListing(), body: listingBody(700) }), 200);
    expect((await search()).hits.find((h) => h.id === listingId)?.price).toBe(700);
    await expectStatus(asOne.POST('/seller/listings', { body: listingBody(300) }), 201);
    expect((await search()).total).toBe(total + 1);
    expect(await stats()).toBe(listed + 1);
  });

  it('an Idempotency-Key used on API 1 is replayed by API 2, without acting twice', async () => {
    const [one, two] = apis as [TestApi, TestApi];
    const key = `replica-${Date.now()}`;
    const create = (api: TestApi) =>
      apiClient(api, seller.bearer).POST('/seller/listings', { params: { header: { 'Idempotency-Key': key } }, body: listingBody(410) });
    const first = await expectStatus(create(one), 201);
    const again = await expectStatus(create(two), 201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM listings WHERE seller_id = $1 AND price = 410`, [seller.id]);
    expect(n).toBe(1);
  });
});

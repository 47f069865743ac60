import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createOfferActivities } from '../../activities/offers';
import { classifyFailures } from '../../activities/failures';
import { OfferEngine } from '../../src/services/offers/offer-engine';
import { TemporalStartExecutor } from '../../src/temporal/start-executor';
import { offerChangeStarts, offerStart, offersWorkflowIds } from '../../src/modules/offers';
import { offerChangedSignal } from '../../workflows/contracts/offer';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog, type FixtureItem } from '../support/fixtures';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { runInBackground, testDataConverter, timeSkippingEnv, workflowBundle } from '../support/temporal';
import { WorkerGroup } from '../../worker/worker-group';

// The real API and the real offer activities on a fresh database, against the time-skipping
// server: the two deadlines (48 h each, the defaults) pass in milliseconds. One worker for the
// whole file, since offers started by one test may outlive it.
let env: TestWorkflowEnvironment;
let api: TestApi;
let stopWorker: () => Promise<void>;
let items: FixtureItem[];
let seller: TestUser;
let buyer: TestUser;

beforeAll(async () => {
  env = await timeSkippingEnv();
  api = await startTestApi({ temporal: env.client });
  const db = api.database.db;
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: api.config.temporal.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: classifyFailures(createOfferActivities({ engine: new OfferEngine(db, api.config.offers, offerChangeStarts) })),
  });
  stopWorker = runInBackground(new WorkerGroup(worker, []));
  ({ items } = await seedCatalog(db, { names: ['Mewtwo'] }));
  [seller, buyer] = await Promise.all([registerSeller(api, 'wseller'), registerUser(api, 'wbuyer')]);
});
/** Offers whose workflow finished: their histories are kept for the replay test (RECORD_REPLAY_HISTORIES=1). */
const finishedIds: string[] = [];
afterAll(async () => {
  if (env) await recordReplayHistoriesOf(env.client, finishedIds);
  await stopWorker?.();
  await api?.close();
  await env?.teardown();
});

const db = () => api.database.db;

const listing = (values: Record<string, unknown> = {}) =>
  insertListing(db(), { sellerId: seller.id, itemUrn: items[0]!.urn, price: 10000, quantity: 1, offersEnabled: true, ...values });

/**
 * An offer through the API, with its workflow started as the dispatcher would start its outbox
 * row (no dispatcher runs here; the other rows, e-mails, are not this worker's).
 */
async function makeOffer(listingId: string, unitPrice: number) {
  const res = await api.http.post('/user/offers').set(buyer.bearer).send({ listingId, quantity: 1, unitPrice }).expect(201);
  const offer = res.body as { id: string; status: string };
  await new TemporalStartExecutor(env.client, api.config.temporal.taskQueue).execute(offerStart(offer.id, listingId), { eager: false });
  return offer;
}

const move = (as: 'buyer' | 'seller', offerId: string, body: Record<string, unknown>) =>
  api.http
    .put(`/${as === 'buyer' ? 'user' : 'seller'}/offers/${offerId}`)
    .set((as === 'buyer' ? buyer : seller).bearer)
    .send(body);

/** Waits for `offer:{id}` to finish, skipping time to its timers; answers its final status. */
async function finished(offerId: string): Promise<string> {
  const state = await env.client.workflow.getHandle(offersWorkflowIds.offer(offerId)).result();
  finishedIds.push(offersWorkflowIds.offer(offerId));
  return (state as { status: string }).status;
}

async function stored(offerId: string) {
  const [row] = await db().query(
    `SELECT o.status, o.history, l.reserved, (SELECT count(*)::int FROM listing_holds h WHERE h.checkout_id = o.id AND h.released_at IS NULL) AS holds
       FROM offers o JOIN listings l ON l.id = o.listing_id WHERE o.id = $1`,
    [offerId],
  );
  return row as { status: string; history: Array<{ by: string; action: string; reason?: string }>; reserved: number; holds: number };
}

const steps = (history: Array<{ by: string; action: string }>) => history.map((h) => `${h.by}:${h.action}`);

async function eventTypes(offerId: string) {
  const rows: Array<{ type: string; status: string }> = await db().query(
    `SELECT type, data->>'status' AS status FROM outbox_events WHERE data->>'offerId' = $1 ORDER BY created_at, id`,
    [offerId],
  );
  return rows.map((r) => `${r.type}:${r.status}`);
}

describe('offer:{id} deadlines', () => {
  it('an offer nobody answers expires after 48 hours (OFFER_EXPIRED)', async () => {
    const l = await listing();
    const o = await makeOffer(l.id, 8000);
    expect(await finished(o.id)).toBe('EXPIRED');
    const row = await stored(o.id);
    expect(steps(row.history)).toEqual(['BUYER:offer', 'SYSTEM:expire']);
    expect(await eventTypes(o.id)).toEqual(['OFFER_RECEIVED:PENDING', 'OFFER_EXPIRED:EXPIRED']);
  });

  it("a counter restarts the 48 hours; the buyer's silence expires it", async () => {
    const l = await listing();
    const o = await makeOffer(l.id, 8000);
    const countered = await move('seller', o.id, { action: 'counter', unitPrice: 9000 }).expect(200);
    expect(countered.body).toMatchObject({ status: 'COUNTERED', unitPrice: 9000 });
    expect(countered.body.nextActions.map((a: { party: string; action: string }) => `${a.party}:${a.action}`)).toEqual([
      'BUYER:accept',
      'BUYER:decline',
      'BUYER:counter',
      'BUYER:withdraw',
    ]);
    expect(await finished(o.id)).toBe('EXPIRED');
    expect(steps((await stored(o.id)).history)).toEqual(['BUYER:offer', 'SELLER:counter', 'SYSTEM:expire']);
  });

  it('an accepted offer holds the unit; unpaid after 48 hours it LAPSES and the hold is released', async () => {
    const l = await listing();
    const o = await makeOffer(l.id, 8000);
    const accepted = await move('seller', o.id, { action: 'accept' }).expect(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', unitPrice: 8000, expiresAt: null });
    expect(accepted.body.payBy).not.toBeNull();
    expect(await stored(o.id)).toMatchObject({ reserved: 1, holds: 1 });
    expect(await finished(o.id)).toBe('LAPSED');
    const row = await stored(o.id);
    expect(row).toMatchObject({ status: 'LAPSED', reserved: 0, holds: 0 });
    expect(steps(row.history)).toEqual(['BUYER:offer', 'SELLER:accept', 'SYSTEM:lapse']);
    expect(await eventTypes(o.id)).toEqual(['OFFER_RECEIVED:PENDING', 'OFFER_ACCEPTED:ACCEPTED', 'OFFER_EXPIRED:LAPSED']);
  });
});

describe('thresholds on a counter act at once', () => {
  it("auto-accepts the buyer's counter at autoAcceptAt, then the payment deadline runs", async () => {
    const l = await listing({ offerAutoAcceptAt: 9000 });
    const o = await makeOffer(l.id, 7000);
    expect(o.status).toBe('PENDING');
    await move('seller', o.id, { action: 'counter', unitPrice: 9500 }).expect(200);
    const res = await move('buyer', o.id, { action: 'counter', unitPrice: 9000 }).expect(200);
    expect(res.body).toMatchObject({ status: 'ACCEPTED', unitPrice: 9000 });
    expect(steps(res.body.history)).toEqual(['BUYER:offer', 'SELLER:counter', 'BUYER:counter', 'SYSTEM:auto-accept']);
    expect(res.body.history[3].reason).toBe('auto-accept');
    expect(await finished(o.id)).toBe('LAPSED');
  });

  it("auto-declines the buyer's counter below autoDeclineBelow; the workflow ends", async () => {
    const l = await listing({ offerAutoDeclineBelow: 6000 });
    const o = await makeOffer(l.id, 7000);
    await move('seller', o.id, { action: 'counter', unitPrice: 9000 }).expect(200);
    const res = await move('buyer', o.id, { action: 'counter', unitPrice: 5000 }).expect(200);
    expect(res.body).toMatchObject({ status: 'DECLINED', endedReason: 'auto-decline', nextActions: [] });
    expect(steps(res.body.history)).toEqual(['BUYER:offer', 'SELLER:counter', 'BUYER:counter', 'SYSTEM:auto-decline']);
    expect(await finished(o.id)).toBe('DECLINED');
    expect(await eventTypes(o.id)).toEqual(['OFFER_RECEIVED:PENDING', 'OFFER_RECEIVED:COUNTERED', 'OFFER_DECLINED:DECLINED']);
  });
});

describe('moves the workflow refuses', () => {
  it('answers 409/422 for moves out of turn, unchanged counters, prices at the listing price; a retried move is the same Update', async () => {
    const l = await listing();
    const o = await makeOffer(l.id, 8000);
    expect((await move('buyer', o.id, { action: 'accept' }).expect(409)).body.type).toBe('/problems/offer-not-your-turn');
    expect((await move('seller', o.id, { action: 'counter', unitPrice: 8000 }).expect(422)).body.type).toBe(
      '/problems/offer-counter-unchanged',
    );
    expect((await move('seller', o.id, { action: 'counter', unitPrice: 10000 }).expect(422)).body.type).toBe(
      '/problems/offer-not-below-price',
    );
    const key = `counter-${o.id}`;
    const first = await move('seller', o.id, { action: 'counter', unitPrice: 9000 }).set('Idempotency-Key', key).expect(200);
    const again = await move('seller', o.id, { action: 'counter', unitPrice: 9000 }).set('Idempotency-Key', key).expect(200);
    expect(again.body.history).toEqual(first.body.history);
    // Without a key, the request id names the Update: the buyer's retry of the same counter is
    // answered by Temporal with the first outcome, not refused as out of turn.
    const retried = await Promise.all(
      [1, 2].map(async (attempt) => {
        if (attempt === 2) await new Promise((resolve) => setTimeout(resolve, 50));
        return move('buyer', o.id, { action: 'counter', unitPrice: 8500 }).set('X-Request-Id', `retry-${o.id}`);
      }),
    );
    expect(retried.map((r) => r.status)).toEqual([200, 200]);
    // Nothing refused or retried left a trace: one offer, one counter each.
    expect(steps((await stored(o.id)).history)).toEqual(['BUYER:offer', 'SELLER:counter', 'BUYER:counter']);
    await move('buyer', o.id, { action: 'withdraw' }).expect(200);
    expect((await move('buyer', o.id, { action: 'withdraw' }).expect(409)).body.type).toBe('/problems/offer-closed');
    expect(await finished(o.id)).toBe('WITHDRAWN');
  });

  it('ends an open offer with a notice when its listing is repriced to at most the offer', async () => {
    const l = await listing({ quantity: 2 });
    const o = await makeOffer(l.id, 8000);
    await api.http
      .put(`/seller/listings/${l.id}`)
      .set(seller.bearer)
      .send({ urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: 7500, quantity: 2, offers: { enabled: true } })
      .expect(200);
    // The start outbox carries the notice; no dispatcher runs here, so it is signalled directly.
    const [notice] = await db().query(
      `SELECT options->'signal'->>'name' AS signal FROM workflow_starts WHERE workflow_id = $1 AND request_key LIKE 'changed:%'`,
      [offersWorkflowIds.offer(o.id)],
    );
    expect(notice).toEqual({ signal: offerChangedSignal.name });
    await env.client.workflow.getHandle(offersWorkflowIds.offer(o.id)).signal(offerChangedSignal);
    expect(await finished(o.id)).toBe('DECLINED');
    const row = await stored(o.id);
    expect(row.history.at(-1)).toMatchObject({ by: 'SYSTEM', action: 'end', reason: 'listing-repriced' });
  });
});

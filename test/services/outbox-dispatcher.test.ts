import { createLogger } from '../../src/logger';
import { OutboxDispatcher } from '../../src/services/webhooks/dispatcher';
import type { StartDelivery } from '../../src/services/webhooks/endpoints';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { createListing } from '../support/listings';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** A seller with one endpoint subscribed to LISTING_CREATED and `count` undispatched events. */
async function sellerWithEvents(count: number): Promise<string[]> {
  const seller = await registerSeller(api);
  await api.http
    .post('/seller/webhooks')
    .set(seller.bearer)
    .send({ url: 'http://127.0.0.1:9/hook', subscriptions: ['LISTING_CREATED'] })
    .expect(201);
  const events: string[] = [];
  for (let i = 0; i < count; i++) events.push((await createListing(api.database.db, seller.id)).eventId);
  return events;
}

const undispatched = async (eventIds: string[]) =>
  (await api.database.db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE id = ANY ($1::uuid[]) AND dispatched_at IS NULL`, [eventIds]))[0].n as number;

const dispatcherWith = (startDelivery: StartDelivery) =>
  new OutboxDispatcher({ db: api.database.db, databaseUrl: api.database.url, startDelivery, intervalMs: 50, log: createLogger('silent', 'dispatcher-test') });

describe('OutboxDispatcher.dispatchBatch (real Postgres, stubbed workflow starts)', () => {
  it('stamps the events once every start succeeded', async () => {
    const events = await sellerWithEvents(3);
    const started: string[] = [];
    const dispatched = await dispatcherWith(async (eventId) => {
      started.push(eventId);
      return true;
    }).dispatchBatch();
    expect(dispatched).toBeGreaterThanOrEqual(3);
    expect(started).toEqual(expect.arrayContaining(events));
    expect(await undispatched(events)).toBe(0);
  });

  it('a failed start fails the pass only after every other start of the batch settled, and nothing is stamped', async () => {
    const events = await sellerWithEvents(2);
    let slowSettled = false;
    let calls = 0;
    const pass = dispatcherWith(async () => {
      calls++;
      if (calls === 1) throw new Error('Temporal unavailable');
      await new Promise((resolve) => setTimeout(resolve, 300));
      slowSettled = true;
      return true;
    }).dispatchBatch();
    await expect(pass).rejects.toThrow('Temporal unavailable');
    // Otherwise the slow start would still be running after the pass (and after stop()).
    expect(slowSettled).toBe(true);
    expect(await undispatched(events)).toBe(2);
  });
});

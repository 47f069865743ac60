import { WorkflowNotFoundError } from '@temporalio/client';
import { offersWorkflowIds } from '../../src/modules/offers';
import { offerStateQuery } from '../../workflows/contracts/offer';
import { registerUser } from '../support/api';
import { sellerWithListings } from '../support/shop';
import { startStack, type TestStack } from '../support/stack';

/**
 * A party's first move on an offer whose start still waits in the start outbox: the move starts
 * `offer:{offerId}` itself (update-with-start) with the outbox start's input, and the outbox
 * start, dispatched afterwards, finds it running. The dispatcher makes a pass only when a test
 * says so, which is what keeps the start waiting.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({}, { manualStarts: true });
}, 120_000);
afterAll(() => stack?.stop());

const db = () => stack.api.database.db;
/** One dispatcher pass, as the worker process makes them. */
const dispatch = () => stack.dispatcher.dispatchBatch();
const startIntents = (workflowId: string) =>
  db().query(`SELECT started_at, attempts, last_error FROM workflow_starts WHERE workflow_id = $1`, [workflowId]);

/** An offer through the API on a new listing that takes offers: its start is written to the outbox, not made. */
async function newOffer() {
  const { api } = stack;
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 12000 }]);
  const listingId = listingIds[0]!;
  await db().query(`UPDATE listings SET offers_enabled = true WHERE id = $1`, [listingId]);
  const buyer = await registerUser(api, 'firstmove');
  // The earlier starts (e-mails…) are made first, so the offer's is the one left.
  while ((await dispatch()) > 0);
  const offer = await api.http.post('/user/offers').set(buyer.bearer).send({ listingId, quantity: 1, unitPrice: 8000 }).expect(201);
  expect(offer.body).toMatchObject({ status: 'PENDING' });
  return { buyer, seller, offerId: offer.body.id as string, workflowId: offersWorkflowIds.offer(offer.body.id) };
}

describe('the first move on an offer whose start has not been dispatched', () => {
  it('starts the workflow with the outbox start input; the later dispatch finds it running and starts nothing more', async () => {
    const { api, env } = stack;
    const { seller, offerId, workflowId } = await newOffer();
    expect(await startIntents(workflowId)).toEqual([{ started_at: null, attempts: 0, last_error: null }]);
    await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(WorkflowNotFoundError);

    const countered = await api.http
      .put(`/seller/offers/${offerId}`)
      .set(seller.bearer)
      .send({ action: 'counter', unitPrice: 9000 })
      .expect(200);
    expect(countered.body).toMatchObject({ status: 'COUNTERED', unitPrice: 9000 });

    const handle = env.client.workflow.getHandle(workflowId);
    const started = await handle.describe();
    expect(await handle.query(offerStateQuery)).toEqual({ status: 'COUNTERED', turn: 'BUYER', unitPrice: 9000, quantity: 1 });

    // The outbox start arrives late: fulfilled (the id is taken), not failed, and still one run.
    await dispatch();
    expect(await startIntents(workflowId)).toEqual([{ started_at: expect.any(Date), attempts: 1, last_error: null }]);
    expect((await handle.describe()).runId).toBe(started.runId);
    const history = await handle.fetchHistory();
    expect(history.events!.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
  }, 60_000);

  it('answers 409 offer-closed, and starts nothing, when the workflow has ended though the offer row is still open', async () => {
    const { api, env } = stack;
    const { buyer, seller, offerId, workflowId } = await newOffer();
    await dispatch();
    const handle = env.client.workflow.getHandle(workflowId);
    const { runId } = await handle.describe();
    // An operator ended the workflow from the CLI: nothing wrote the offer row.
    await handle.terminate('ended by an operator');

    const res = await api.http.put(`/user/offers/${offerId}`).set(buyer.bearer).send({ action: 'withdraw' }).expect(409);
    expect(res.body.type).toBe('/problems/offer-closed');
    await api.http.put(`/seller/offers/${offerId}`).set(seller.bearer).send({ action: 'accept' }).expect(409);
    expect((await handle.describe()).runId).toBe(runId);
  }, 60_000);
});

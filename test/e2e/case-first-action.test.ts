import { WorkflowNotFoundError } from '@temporalio/client';
import { CASE_SEARCH_ATTRIBUTES } from '../../src/domain/cases/search-attributes';
import { casesWorkflowIds } from '../../src/modules/cases';
import { caseStateQuery } from '../../workflows/contracts/case';
import { boughtOrder } from '../support/shop';
import { startStack, type TestStack } from '../support/stack';

/**
 * A party's first action on a case whose start still waits in the start outbox: the action
 * starts `case:{caseId}` itself (update-with-start) with the outbox start's input, and the
 * outbox start, dispatched afterwards, finds it running. The dispatcher makes a pass only when a
 * test says so, which is what keeps the start waiting (the dev server, unlike the time-skipping
 * one, knows the case's search attributes).
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

/** A buyer's dispute through the API, proposing a half refund at opening: its start is written to the outbox, not made. */
async function disputedCase() {
  const { api } = stack;
  const { buyer, seller, purchaseId, order } = await boughtOrder(api, { buyerPrefix: 'firstact' });
  // The purchase's own starts (receipt, tracking…) are made first, so the case's is the one left.
  while ((await dispatch()) > 0);
  await api.http
    .put(`/user/purchases/${purchaseId}`)
    .set(buyer.bearer)
    .send({
      action: 'dispute',
      orderId: order.id,
      reason: 'DAMAGED',
      items: [{ id: order.items[0]!.id, quantity: 1 }],
      outcomes: [{ type: 'REFUND', amount: 500, comment: 'Half back' }],
    })
    .expect(200);
  const [opened] = (await api.http.get('/user/cases').set(buyer.bearer).expect(200)).body;
  return { buyer, seller, order, opened, workflowId: casesWorkflowIds.case(opened.id) };
}

describe('the first action on a case whose start has not been dispatched', () => {
  it('starts the workflow with the outbox start input; the later dispatch finds it running and starts nothing more', async () => {
    const { api, env } = stack;
    const { seller, order, opened, workflowId } = await disputedCase();
    expect(await startIntents(workflowId)).toEqual([{ started_at: null, attempts: 0, last_error: null }]);
    await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(WorkflowNotFoundError);

    // Accepting the outcome proposed at opening: the workflow can only know it from its start input.
    const outcomeId = opened.outcomes[0].id;
    const accepted = await api.http.put(`/seller/cases/${opened.id}`).set(seller.bearer).send({ action: 'accept', outcomeId }).expect(200);
    expect(accepted.body).toMatchObject({ status: 'CLOSED', outcomes: [{ id: outcomeId, status: 'ACCEPTED' }] });

    const handle = env.client.workflow.getHandle(workflowId);
    const started = await handle.describe();
    expect(started.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.reason)).toBe('DAMAGED');
    expect(started.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.sellerId)).toBe(seller.id);
    expect(started.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.orderId)).toBe(order.id);
    expect(await handle.query(caseStateQuery)).toEqual({
      status: 'CLOSED',
      outcomes: [{ id: outcomeId, type: 'REFUND', party: 'BUYER', status: 'ACCEPTED' }],
    });

    // The outbox start arrives late: fulfilled (the id is taken), not failed, and still one run.
    await dispatch();
    expect(await startIntents(workflowId)).toEqual([{ started_at: expect.any(Date), attempts: 1, last_error: null }]);
    expect((await handle.describe()).runId).toBe(started.runId);
    const history = await handle.fetchHistory();
    expect(history.events!.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
  }, 60_000);

  it('answers 409 case-closed, and starts nothing, when the workflow has ended though the case row is not CLOSED', async () => {
    const { api, env } = stack;
    const { buyer, seller, opened, workflowId } = await disputedCase();
    await dispatch();
    const handle = env.client.workflow.getHandle(workflowId);
    const { runId } = await handle.describe();
    // An operator ended the workflow from the CLI: nothing wrote the case row.
    await handle.terminate('ended by an operator');

    const res = await api.http.put(`/user/cases/${opened.id}`).set(buyer.bearer).send({ action: 'escalate' }).expect(409);
    expect(res.body.type).toBe('/problems/case-closed');
    await api.http.put(`/seller/cases/${opened.id}`).set(seller.bearer).send({ action: 'resolve' }).expect(409);
    expect((await handle.describe()).runId).toBe(runId);
  }, 60_000);
});

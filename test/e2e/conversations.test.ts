import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { registerUser, type TestUser } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { TEMPORAL_CLI } from '../support/env';
import { insertPurchase } from '../support/orders';
import { eventually, startStack, type TestStack } from '../support/stack';

const run = promisify(execFile);

let stack: TestStack;
beforeAll(async () => {
  // A 3-second grace period so the test waits seconds, not minutes.
  stack = await startStack({ CONVERSATION_NOTIFY_GRACE_SECONDS: '3', CONVERSATION_NOTIFY_MAX_DELAY_SECONDS: '60' });
}, 60_000);
afterAll(() => stack?.stop());

async function conversation() {
  const buyer = await registerUser(stack.api, 'buyer');
  const seller = await registerUser(stack.api, 'seller');
  const { orderIds } = await insertPurchase(stack.api.database.db, { buyerId: buyer.id, sellerIds: [seller.id], orderStatus: 'SHIPPED' });
  const created = await dataOf(
    apiClient(stack.api, buyer.bearer).POST('/conversations', {
      body: { source: { id: orderIds[0]! }, recipientId: seller.id, body: 'message 1' },
    }),
    201,
  );
  return { buyer, seller, conversationId: created.id };
}

const say = (from: TestUser, conversationId: string, body: string) =>
  expectStatus(
    apiClient(stack.api, from.bearer).POST('/conversations/{id}/messages', { params: { path: { id: conversationId } }, body: { body } }),
    201,
  );

/** `temporal workflow list` against the dev server, as an operator would run it. */
async function listed(workflowId: string): Promise<Array<{ execution: { workflowId: string }; status: string }>> {
  const { stdout } = await run(TEMPORAL_CLI, [
    'workflow',
    'list',
    '--address',
    stack.env.address,
    '--namespace',
    stack.api.config.temporal.namespace,
    '--query',
    `WorkflowId = '${workflowId}'`,
    '-o',
    'json',
  ]);
  return stdout.trim() ? JSON.parse(stdout) : [];
}

const emailsTo = (address: string) =>
  stack.api.database.db.query(`SELECT subject, delivered_at FROM email_messages WHERE to_address = $1 AND kind = 'conversation-unread'`, [
    address,
  ]) as Promise<Array<{ subject: string; delivered_at: Date | null }>>;

describe('e-mail to an inactive recipient', () => {
  it('debounces a burst of 5 messages into one e-mail, through a workflow listed by its id', async () => {
    const { buyer, seller, conversationId } = await conversation();
    for (let i = 2; i <= 5; i++) await say(buyer, conversationId, `message ${i}`);
    const workflowId = `conversation-notify:${conversationId}:${seller.id}`;
    const runs = await eventually(async () => {
      const found = await listed(workflowId);
      return found.length > 0 ? found : null;
    });
    expect(runs[0]!.execution.workflowId).toBe(workflowId);
    const result = await stack.env.client.workflow.getHandle(workflowId).result();
    expect(result.emails).toHaveLength(1);
    const emails = await emailsTo(seller.email);
    expect(emails).toEqual([{ subject: `${buyer.username} sent you 5 unread messages`, delivered_at: expect.any(Date) }]);
    // The sender got nothing: nobody wrote to them.
    expect(await emailsTo(buyer.email)).toEqual([]);
  }, 60_000);

  it('sends none when the recipient reads within the grace period', async () => {
    const { buyer, seller, conversationId } = await conversation();
    await say(buyer, conversationId, 'message 2');
    await expectStatus(
      apiClient(stack.api, seller.bearer).GET('/conversations/{id}/messages', { params: { path: { id: conversationId } } }),
      200,
    );
    const workflowId = `conversation-notify:${conversationId}:${seller.id}`;
    await eventually(async () => ((await listed(workflowId)).length > 0 ? true : null));
    const result = await stack.env.client.workflow.getHandle(workflowId).result();
    expect(result.emails).toEqual([]);
    expect(await emailsTo(seller.email)).toEqual([]);
  }, 60_000);
});

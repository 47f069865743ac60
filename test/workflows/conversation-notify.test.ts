import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ConversationActivities } from '../../activities/conversations';
import type { EmailActivities } from '../../activities/email';
import { conversationNotifyWorkflow } from '../../workflows';
import { newMessageSignal, type ConversationNotifyInput } from '../../workflows/contracts/conversation-notify';
import { timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(() => env?.teardown());

const TASK_QUEUE = 'test-conversation-notify';
const input = (conversationId: string): ConversationNotifyInput => ({
  conversationId,
  userId: 'u1',
  graceMs: 120_000,
  maxDelayMs: 900_000,
  inactiveSeconds: 300,
});

type Activities = Pick<ConversationActivities, 'queueUnreadNotification'> & Pick<EmailActivities, 'deliverEmail'>;

async function withWorker<T>(activities: Activities, body: () => Promise<T>): Promise<T> {
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities,
  });
  return worker.runUntil(body());
}

/** Signal-with-start, as the workflow-start path does for every message. */
const message = (conversationId: string) =>
  env.client.workflow.signalWithStart(conversationNotifyWorkflow, {
    workflowId: `conversation-notify:${conversationId}:u1`,
    taskQueue: TASK_QUEUE,
    args: [input(conversationId)],
    signal: newMessageSignal,
    signalArgs: [],
  });

describe('conversationNotifyWorkflow', () => {
  it('turns a burst of 5 messages into one e-mail, decided after the grace period', async () => {
    const checks: number[] = [];
    const delivered: string[] = [];
    const result = await withWorker(
      {
        queueUnreadNotification: async () => {
          checks.push(await env.currentTimeMs());
          return 'email-1';
        },
        deliverEmail: async (id) => void delivered.push(id),
      },
      async () => {
        const handle = await message('c1');
        const firstAt = await env.currentTimeMs();
        for (let i = 0; i < 4; i++) {
          await env.sleep(30_000); // messages 30 s apart: within the grace period
          await message('c1');
        }
        const result = await handle.result();
        // The decision came once, the grace period after the last message (test-server time).
        expect(checks).toHaveLength(1);
        expect(checks[0]! - firstAt).toBeGreaterThanOrEqual(4 * 30_000 + 120_000);
        return result;
      },
    );
    expect(result).toEqual({ emails: ['email-1'] });
    expect(delivered).toEqual(['email-1']);
  });

  it('sends nothing when the messages were read within the grace period', async () => {
    const delivered: string[] = [];
    let read = false;
    const result = await withWorker(
      {
        // The activity's answer when the recipient read in time: nothing to send.
        queueUnreadNotification: async () => (read ? null : 'email-2'),
        deliverEmail: async (id) => void delivered.push(id),
      },
      async () => {
        const handle = await message('c2');
        await env.sleep(60_000);
        read = true;
        return handle.result();
      },
    );
    expect(result).toEqual({ emails: [] });
    expect(delivered).toEqual([]);
  });

  it('decides by the maximum delay even while messages keep coming', async () => {
    const checks: number[] = [];
    let firstAt = 0;
    await withWorker(
      {
        queueUnreadNotification: async () => {
          checks.push(await env.currentTimeMs());
          return null;
        },
        deliverEmail: async () => undefined,
      },
      async () => {
        const handle = await message('c3');
        firstAt = await env.currentTimeMs();
        // A message every 100 s until 800 s: never a quiet 120 s before 920 s, so the 15-minute cap decides.
        for (let i = 0; i < 8; i++) {
          await env.sleep(100_000);
          await message('c3');
        }
        await handle.result();
      },
    );
    expect(checks).toHaveLength(1);
    expect(checks[0]! - firstAt).toBeGreaterThanOrEqual(900_000 - 1000);
    expect(checks[0]! - firstAt).toBeLessThan(900_000 + 100_000);
  });
});

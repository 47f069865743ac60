import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { emailWorkflowIds } from '../../src/modules/email';
import { emailDeliveryWorkflow } from '../../workflows';
import { FAILURE_MEMO } from '../../workflows/bounded-activities';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { testDataConverter, timeSkippingEnv, workflowBundle } from '../support/temporal';

const TASK_QUEUE = 'test-email-delivery';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Runs `email:{messageId}` on a worker whose deliverEmail is `deliver`. */
async function deliver(messageId: string, deliverEmail: (id: string) => Promise<void>) {
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: { deliverEmail },
  });
  const handle = await env.client.workflow.start(emailDeliveryWorkflow, {
    workflowId: emailWorkflowIds.delivery(messageId),
    taskQueue: TASK_QUEUE,
    args: [{ messageId }],
  });
  const outcome = await worker.runUntil(
    handle.result().then(
      () => 'completed',
      () => 'failed',
    ),
  );
  return { handle, outcome };
}

describe('emailDeliveryWorkflow', () => {
  it('hands its one message to the transport, retrying a failed send', async () => {
    const calls: string[] = [];
    const { handle, outcome } = await deliver('message-1', async (id) => {
      calls.push(id);
      if (calls.length < 3) throw new Error('smtp down');
    });
    expect(outcome).toBe('completed');
    expect(calls).toEqual(['message-1', 'message-1', 'message-1']);
    await recordReplayHistoriesOf(env.client, [handle.workflowId]);
  });

  it('gives up after a bounded number of attempts and says so on its memo', async () => {
    let attempts = 0;
    const { handle, outcome } = await deliver('message-2', async () => {
      attempts += 1;
      throw new Error('smtp down for good');
    });
    expect(outcome).toBe('failed');
    expect(attempts).toBe(10);
    const { memo } = await handle.describe();
    expect(memo?.[FAILURE_MEMO]).toMatchObject({ activity: 'deliverEmail' });
  });
});

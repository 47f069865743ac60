import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { EmailActivities } from '../../activities/email';
import { emailChangeWorkflow } from '../../workflows';
import { timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(() => env?.teardown());

async function run(activities: EmailActivities, requestId: string) {
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: 'test-email',
    workflowBundle: await workflowBundle(),
    activities,
  });
  return worker.runUntil(
    env.client.workflow.execute(emailChangeWorkflow, {
      workflowId: `email-change:${requestId}`,
      taskQueue: 'test-email',
      args: [{ requestId }],
    }),
  );
}

describe('emailChangeWorkflow', () => {
  it('issues the code, then delivers the message it queued', async () => {
    const calls: string[] = [];
    const result = await run(
      {
        issueEmailChangeCode: async (id) => {
          calls.push(`issue:${id}`);
          return 'msg-1';
        },
        deliverEmail: async (id) => {
          calls.push(`deliver:${id}`);
        },
      },
      'r1',
    );
    expect(result).toEqual({ messageId: 'msg-1' });
    expect(calls).toEqual(['issue:r1', 'deliver:msg-1']);
  });

  it('delivers nothing when the request is no longer pending', async () => {
    const delivered: string[] = [];
    const result = await run({ issueEmailChangeCode: async () => null, deliverEmail: async (id) => void delivered.push(id) }, 'r2');
    expect(result).toEqual({ messageId: null });
    expect(delivered).toEqual([]);
  });

  it('retries a failing delivery until it succeeds', async () => {
    let attempts = 0;
    const result = await run(
      {
        issueEmailChangeCode: async () => 'msg-3',
        deliverEmail: async () => {
          attempts += 1;
          if (attempts < 3) throw new Error('SMTP server unavailable');
        },
      },
      'r3',
    );
    expect(result.messageId).toBe('msg-3');
    expect(attempts).toBe(3);
  });
});

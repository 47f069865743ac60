import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AlertActivities } from '../../activities/alerts';
import type { EmailActivities } from '../../activities/email';
import { alertDigestWorkflow } from '../../workflows';
import { alertsNotifiedSignal } from '../../workflows/contracts/alert-digest';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(() => env?.teardown());

const TASK_QUEUE = 'test-alert-digest';
const INTERVAL = 15 * 60_000;

type Activities = Pick<AlertActivities, 'queueAlertDigest'> & Pick<EmailActivities, 'deliverEmail'>;

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

/** Signal-with-start, as the start outbox makes it for each batch of notifications. */
const notified = (userId: string) =>
  env.client.workflow.signalWithStart(alertDigestWorkflow, {
    workflowId: `alert-digest:${userId}`,
    taskQueue: TASK_QUEUE,
    args: [{ userId, intervalMs: INTERVAL }],
    signal: alertsNotifiedSignal,
    signalArgs: [],
  });

/** A digest activity that records when it ran and answers a new e-mail each time (or null when `off`). */
function recorder(off = false) {
  const queued: Array<{ at: number; key: string }> = [];
  const delivered: string[] = [];
  const activities: Activities = {
    queueAlertDigest: async ({ key }) => {
      queued.push({ at: await env.currentTimeMs(), key });
      return off ? null : `email-${queued.length}`;
    },
    deliverEmail: async (id) => void delivered.push(id),
  };
  return { queued, delivered, activities };
}

describe('alertDigestWorkflow', () => {
  it('e-mails at once, then at most once per 15 minutes, covering what arrived meanwhile', async () => {
    const { queued, delivered, activities } = recorder();
    const result = await withWorker(activities, async () => {
      const handle = await notified('u1');
      const startedAt = await env.currentTimeMs();
      // Five more batches during the first 15 minutes: one e-mail for all of them, when the window ends.
      for (let i = 0; i < 5; i++) {
        await env.sleep(60_000);
        await notified('u1');
      }
      const result = await handle.result();
      expect(queued).toHaveLength(2);
      expect(queued[0]!.at - startedAt).toBeLessThan(60_000);
      expect(queued[1]!.at - queued[0]!.at).toBeGreaterThanOrEqual(INTERVAL);
      expect(new Set(queued.map((q) => q.key)).size).toBe(2);
      return result;
    });
    expect(result).toEqual({ emails: ['email-1', 'email-2'] });
    expect(delivered).toEqual(['email-1', 'email-2']);
    await recordReplayHistoriesOf(env.client, ['alert-digest:u1']);
  });

  it('ends after a quiet window; the next notification starts a new run that e-mails at once', async () => {
    const { queued, activities } = recorder();
    await withWorker(activities, async () => {
      const first = await notified('u2');
      expect(await first.result()).toEqual({ emails: ['email-1'] });
      const endedAt = await env.currentTimeMs();
      await env.sleep(5 * 60_000);
      const second = await notified('u2');
      expect(second.signaledRunId).not.toBe(first.signaledRunId);
      expect(await second.result()).toEqual({ emails: ['email-2'] });
      // The second run's e-mail went out without waiting for another window.
      expect(queued[1]!.at - endedAt).toBeLessThan(INTERVAL);
    });
  });

  it('delivers nothing when the activity has nothing to send (alert e-mails off, or all read)', async () => {
    const { queued, delivered, activities } = recorder(true);
    const result = await withWorker(activities, async () => {
      const handle = await notified('u3');
      await env.sleep(60_000);
      await notified('u3');
      return handle.result();
    });
    expect(queued).toHaveLength(2);
    expect(result).toEqual({ emails: [] });
    expect(delivered).toEqual([]);
  });
});

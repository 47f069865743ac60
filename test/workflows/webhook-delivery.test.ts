import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { AttemptInput, AttemptResult } from '../../activities/webhooks';
import { webhookDeliveryWorkflow } from '../../workflows';
import type { WebhookDeliveryPolicy } from '../../workflows/contracts/webhook-delivery';
import { MAX_RETRY_AFTER_MS } from '../../workflows/webhook-delivery';
import { timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(() => env?.teardown());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The production default (config WEBHOOK_RETRY_SCHEDULE). */
const DEFAULT_SCHEDULE = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
const policy: WebhookDeliveryPolicy = { retryScheduleMs: DEFAULT_SCHEDULE, attemptTimeoutMs: 15 * SECOND, localAttempts: true };

interface Recorded {
  input: AttemptInput;
  /** The test server's (skipped) time when the attempt ran: an attempt is a local activity, whose info carries the worker's clock. */
  at: number;
}

let counter = 0;

/** Runs a delivery with `answer(n)` deciding the n-th attempt's outcome; returns result, attempts and history. */
async function deliver(answer: (n: number) => AttemptResult, emails: string[] = [], deliveryPolicy = policy) {
  const attempts: Recorded[] = [];
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: 'test-webhooks',
    workflowBundle: await workflowBundle(),
    activities: {
      attemptWebhookDelivery: async (input: AttemptInput) => {
        attempts.push({ input, at: await env.currentTimeMs() });
        return answer(attempts.length);
      },
      deliverEmail: async (id: string) => void emails.push(id),
    },
  });
  counter += 1;
  const result = await worker.runUntil(
    env.client.workflow.execute(webhookDeliveryWorkflow, {
      workflowId: `webhook:evt-${counter}:ep-1`,
      taskQueue: 'test-webhooks',
      args: [{ eventId: `evt-${counter}`, endpointId: 'ep-1', policy: deliveryPolicy }],
    }),
  );
  const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
  const history = (await env.client.workflow.getHandle(`webhook:evt-${counter}:ep-1`).fetchHistory()).events ?? [];
  return { result, attempts, gaps, history };
}

const retry: AttemptResult = { outcome: 'retry', retryAfterMs: null };

type HistoryEvent = Awaited<ReturnType<typeof deliver>>['history'][number];
const localAttempts = (history: HistoryEvent[]) =>
  history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
const scheduledActivities = (history: HistoryEvent[]) => history.filter((e) => e.activityTaskScheduledEventAttributes).length;

describe('webhookDeliveryWorkflow (time-skipping)', () => {
  it('succeeds on the first attempt without waiting', async () => {
    const { result, attempts, history } = await deliver(() => ({ outcome: 'delivered' }));
    expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
    expect(attempts[0]!.input).toMatchObject({ endpointId: 'ep-1', finalAttempt: false, timeoutMs: 15 * SECOND });
    // The attempt ran as a local activity, inside the one workflow task: no activity task.
    expect(localAttempts(history)).toBe(1);
    expect(scheduledActivities(history)).toBe(0);
    expect(history.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
  });

  it('a delivery started before attempts were local (its policy does not say so) keeps making them as activities', async () => {
    const before: WebhookDeliveryPolicy = { retryScheduleMs: DEFAULT_SCHEDULE, attemptTimeoutMs: 15 * SECOND };
    const { result, gaps, history } = await deliver((n) => (n === 1 ? retry : { outcome: 'delivered' }), [], before);
    expect(result).toEqual({ outcome: 'delivered', attempts: 2 });
    expect(gaps[0]).toBeGreaterThanOrEqual(DEFAULT_SCHEDULE[0]!);
    expect(scheduledActivities(history)).toBe(2);
    expect(localAttempts(history)).toBe(0);
  });

  it('follows the whole retry schedule (5 s … 10 h), then gives up with the last attempt marked final', async () => {
    const { result, attempts, gaps } = await deliver(() => retry);
    expect(result).toEqual({ outcome: 'failed', attempts: DEFAULT_SCHEDULE.length + 1 });
    // Each wait is the scheduled one (allowing for the server's scheduling granularity).
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(DEFAULT_SCHEDULE[i]!);
      expect(gap).toBeLessThan(DEFAULT_SCHEDULE[i]! + 2 * SECOND);
    });
    expect(attempts.map((a) => a.input.finalAttempt)).toEqual([...DEFAULT_SCHEDULE.map(() => false), true]);
  });

  it('stops retrying as soon as an attempt succeeds', async () => {
    const { result, attempts } = await deliver((n) => (n < 4 ? retry : { outcome: 'delivered' }));
    expect(result).toEqual({ outcome: 'delivered', attempts: 4 });
    expect(attempts).toHaveLength(4);
  });

  it('honours a Retry-After longer than the scheduled wait, capped at 24 h', async () => {
    const { gaps } = await deliver((n) =>
      n === 1
        ? { outcome: 'retry', retryAfterMs: 2 * HOUR }
        : n === 2
          ? { outcome: 'retry', retryAfterMs: 30 * 24 * HOUR }
          : { outcome: 'delivered' },
    );
    expect(gaps[0]).toBeGreaterThanOrEqual(2 * HOUR);
    expect(gaps[0]).toBeLessThan(2 * HOUR + 2 * SECOND);
    expect(gaps[1]).toBeGreaterThanOrEqual(MAX_RETRY_AFTER_MS);
    expect(gaps[1]).toBeLessThan(MAX_RETRY_AFTER_MS + 2 * SECOND);
  });

  it('a Retry-After shorter than the schedule does not hurry the retry', async () => {
    const { gaps } = await deliver((n) => (n === 1 ? { outcome: 'retry', retryAfterMs: 1 } : { outcome: 'delivered' }));
    expect(gaps[0]).toBeGreaterThanOrEqual(DEFAULT_SCHEDULE[0]!);
  });

  it('stops at once on 410 Gone', async () => {
    const { result, attempts } = await deliver(() => ({ outcome: 'gone' }));
    expect(result).toEqual({ outcome: 'gone', attempts: 1 });
    expect(attempts).toHaveLength(1);
  });

  it('stops when the endpoint is auto-disabled and e-mails its owner', async () => {
    const emails: string[] = [];
    const { result } = await deliver((n) => (n < 3 ? retry : { outcome: 'disabled', notificationId: 'msg-9' }), emails);
    expect(result).toEqual({ outcome: 'disabled', attempts: 3 });
    expect(emails).toEqual(['msg-9']);
  });

  it('stops when there is nothing to send (endpoint deleted or disabled)', async () => {
    const { result } = await deliver(() => ({ outcome: 'skipped' }));
    expect(result).toEqual({ outcome: 'skipped', attempts: 1 });
  });

  it('retries an attempt that fails for infrastructure reasons, without counting it as a delivery attempt', async () => {
    let calls = 0;
    const worker = await Worker.create({
      dataConverter: testDataConverter,
      connection: env.nativeConnection,
      taskQueue: 'test-webhooks-infra',
      workflowBundle: await workflowBundle(),
      activities: {
        attemptWebhookDelivery: async (): Promise<AttemptResult> => {
          calls += 1;
          if (calls < 3) throw new Error('database unavailable');
          return { outcome: 'delivered' };
        },
        deliverEmail: async () => undefined,
      },
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(webhookDeliveryWorkflow, {
        workflowId: 'webhook:evt-infra:ep-1',
        taskQueue: 'test-webhooks-infra',
        args: [{ eventId: 'evt-infra', endpointId: 'ep-1', policy }],
      }),
    );
    expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
    expect(calls).toBe(3);
  });
});

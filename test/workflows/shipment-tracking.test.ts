import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { OrderActivities } from '../../activities/orders';
import type { TrackingActivities } from '../../activities/tracking';
import type { TrackingPoll } from '../../src/services/orders/shipment-tracking';
import { orderReceiptWorkflow, shipmentTrackingWorkflow } from '../../workflows';
import { orderDeliveredSignal, trackingNumberChangedSignal } from '../../workflows/contracts/shipment-tracking';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { testDataConverter, timeSkippingEnv, workflowBundle } from '../support/temporal';

const HOUR = 3_600;
const DAY = 86_400;
const TASK_QUEUE = 'test-shipment-tracking';
const policy = { pollSeconds: HOUR, pollMaxSeconds: 6 * HOUR, giveUpSeconds: 30 * DAY };

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(() => env?.teardown());

type Activities = TrackingActivities & OrderActivities;

async function withWorker<T>(activities: Partial<Activities>, body: () => Promise<T>): Promise<T> {
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities,
  });
  return worker.runUntil(body());
}

/** A stub carrier poll answering `answers` in turn (the last one repeats), noting when it ran. */
function scriptedPolls(answers: TrackingPoll[]) {
  const at: number[] = [];
  const poll = async (): Promise<TrackingPoll> => {
    at.push(await env.currentTimeMs());
    return answers[Math.min(at.length - 1, answers.length - 1)]!;
  };
  return { at, poll };
}

/** Runs one tracking workflow to its end against a scripted carrier. */
async function track(shipmentId: string, answers: TrackingPoll[], trackingPolicy = policy) {
  const script = scriptedPolls(answers);
  const outcome = await withWorker({ pollShipmentTracking: script.poll }, () =>
    env.client.workflow.execute(shipmentTrackingWorkflow, {
      workflowId: `shipment-tracking:${shipmentId}`,
      taskQueue: TASK_QUEUE,
      args: [{ shipmentId, policy: trackingPolicy }],
    }),
  );
  return { outcome, at: script.at };
}

const hoursBetween = (at: number[]) => at.slice(1).map((t, i) => Math.round((t - at[i]!) / 1000 / HOUR));

describe('shipmentTrackingWorkflow (time-skipping)', () => {
  it('polls with a doubling wait, capped, and ends at DELIVERED', async () => {
    const { outcome, at } = await track('s1', [
      'PRE_TRANSIT',
      'IN_TRANSIT',
      'IN_TRANSIT',
      'IN_TRANSIT',
      'IN_TRANSIT',
      'OUT_FOR_DELIVERY',
      'DELIVERED',
    ]);
    expect(outcome).toBe('DELIVERED');
    expect(at).toHaveLength(7);
    // The wait doubles from 1 h while polls go on and is capped at 6 h.
    expect(hoursBetween(at)).toEqual([1, 2, 4, 6, 6, 6]);
    await recordReplayHistoriesOf(env.client, ['shipment-tracking:s1']);
  });

  it('gives up after the give-up period when the carrier never knows the number', async () => {
    const { outcome, at } = await track('s2', ['UNKNOWN_NUMBER'], { ...policy, giveUpSeconds: 2 * DAY });
    expect(outcome).toBe('GAVE_UP');
    const spanHours = (at.at(-1)! - at[0]!) / 1000 / HOUR;
    expect(spanHours).toBeCloseTo(48, 0);
  });

  it('ends when its shipment is gone', async () => {
    const { outcome, at } = await track('s3', ['SHIPMENT_GONE']);
    expect(outcome).toBe('SHIPMENT_GONE');
    expect(at).toHaveLength(1);
  });

  it('polls a corrected number at once and starts the backoff over', async () => {
    const script = scriptedPolls(['UNKNOWN_NUMBER', 'UNKNOWN_NUMBER', 'UNKNOWN_NUMBER', 'PRE_TRANSIT', 'DELIVERED']);
    const outcome = await withWorker({ pollShipmentTracking: script.poll }, async () => {
      const handle = await env.client.workflow.start(shipmentTrackingWorkflow, {
        workflowId: 'shipment-tracking:s4',
        taskQueue: TASK_QUEUE,
        args: [{ shipmentId: 's4', policy }],
      });
      // Polls at 0, 1 h and 3 h; the next would be at 7 h.
      await env.sleep(`${4 * HOUR} seconds`);
      await handle.signal(trackingNumberChangedSignal);
      return handle.result();
    });
    expect(outcome).toBe('DELIVERED');
    const hours = script.at.map((t) => Math.round((t - script.at[0]!) / 1000 / HOUR));
    expect(hours).toEqual([0, 1, 3, 4, 5]);
  });
});

/**
 * Starts an automatic receipt due `afterDays` after shipping, signals a delivery (3-day receipt)
 * two days in, and returns when, in days from the start, the order was received.
 */
async function receiptWithDeliveryOnDayTwo(orderId: string, afterDays: number): Promise<{ receipts: number; elapsedDays: number }> {
  const received: number[] = [];
  return withWorker(
    {
      autoReceiveOrder: async () => {
        received.push(await env.currentTimeMs());
        return true;
      },
    },
    async () => {
      const handle = await env.client.workflow.start(orderReceiptWorkflow, {
        workflowId: `order-receipt:${orderId}`,
        taskQueue: TASK_QUEUE,
        args: [{ orderId, afterSeconds: afterDays * DAY }],
      });
      const startedAt = await env.currentTimeMs();
      await env.sleep(`${2 * DAY} seconds`);
      await handle.signal(orderDeliveredSignal, { receiptSeconds: 3 * DAY });
      expect(await handle.result()).toBe(true);
      return { receipts: received.length, elapsedDays: (received[0]! - startedAt) / 1000 / DAY };
    },
  );
}

describe('orderReceiptWorkflow and a delivery (time-skipping)', () => {
  it('receives the order the delivered period after the delivery signal, not 21 days after shipping', async () => {
    const { receipts, elapsedDays } = await receiptWithDeliveryOnDayTwo('o1', 21);
    expect(receipts).toBe(1);
    expect(elapsedDays).toBeCloseTo(5, 1);
  });

  it('never moves the receipt later: a delivery signal after a shorter remaining time changes nothing', async () => {
    const { receipts, elapsedDays } = await receiptWithDeliveryOnDayTwo('o2', 4);
    expect(receipts).toBe(1);
    expect(elapsedDays).toBeCloseTo(4, 1);
  });
});

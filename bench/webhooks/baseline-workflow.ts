import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

export interface BaselineActivities {
  touch(eventId: string): Promise<void>;
}

const { touch } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '30 seconds' });

/** The benchmark's baseline: the least a Temporal workflow per event can do (one activity). */
export async function baselineWorkflow(eventId: string): Promise<void> {
  await touch(eventId);
}

const { touch: touchLocally } = proxyLocalActivities<BaselineActivities>({ startToCloseTimeout: '30 seconds' });

/** The baseline with its activity run as a local activity: no activity task, one workflow task. */
export async function baselineLocalWorkflow(eventId: string): Promise<void> {
  await touchLocally(eventId);
}

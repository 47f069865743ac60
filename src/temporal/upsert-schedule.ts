import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';

/**
 * Creates a Temporal Schedule, or brings an existing one's spec and action in line with this
 * process's configuration (a pause an operator set stays). Every worker replica calls it at
 * start: one creates, the others update to the same settings. Overlapping runs are skipped, so a
 * slow run is never doubled.
 */
export async function upsertSchedule(client: Client, scheduleId: string, spec: ScheduleSpec, action: ScheduleOptionsAction): Promise<void> {
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
}

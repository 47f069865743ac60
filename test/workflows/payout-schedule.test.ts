import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensurePayoutSchedule } from '../../src/temporal/payout-schedule';
import { devServerEnv } from '../support/temporal';

/** The payout Schedule on a real Temporal dev server (the time-skipping server has no Schedules). */
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
});
afterAll(async () => {
  await env?.teardown();
});

describe('ensurePayoutSchedule', () => {
  it('creates the payout-run Schedule once, whatever the number of worker starts, and leaves it alone after', async () => {
    const options = { intervalMs: 86_400_000, taskQueue: 'money-test' };
    expect(await ensurePayoutSchedule(env.client, options)).toBe(true);
    expect(await ensurePayoutSchedule(env.client, options)).toBe(false);
    // A later start with another interval does not override what exists (an operator's change survives).
    expect(await ensurePayoutSchedule(env.client, { ...options, intervalMs: 3_600_000 })).toBe(false);

    const described = await env.client.schedule.getHandle('payout-run').describe();
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 86_400_000 })]);
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'payoutRunWorkflow', taskQueue: 'money-test' });
    expect(described.policies.overlap).toBe('SKIP');
  });
});

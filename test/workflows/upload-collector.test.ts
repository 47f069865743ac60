import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { registerUser, type TestApi } from '../support/api';
import { png } from '../support/images';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { startTimeSkippingStack, type TimeSkippingStack } from '../support/stack';

/**
 * The upload collection, as the `upload-collector` Schedule starts it, on the time-skipping
 * server with the real activities on a real database (the Schedule itself is created by the
 * worker; the time-skipping server has no Schedules, see payout-schedule.test.ts).
 */
let env: TestWorkflowEnvironment;
let api: TestApi;
let stack: TimeSkippingStack | undefined;
beforeAll(async () => {
  stack = await startTimeSkippingStack();
  ({ env, api } = stack);
});
afterAll(() => stack?.stop());

describe('uploadCollectorWorkflow', () => {
  it('deletes the unattached uploads older than its bound and answers how many', async () => {
    const user = await registerUser(api);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const id = (await api.http.post('/uploads').set(user.bearer).expect(201)).body.id as string;
      await api.http
        .put(`/uploads/${id}`)
        .set(user.bearer)
        .type('image/png')
        .send(await png())
        .expect(200);
      ids.push(id);
    }
    await api.database.db.query(`UPDATE uploads SET created_at = now() - interval '2 days' WHERE id = $1`, [ids[0]]);
    const workflowId = `upload-collector-${new Date().toISOString()}`;
    const deleted = await env.client.workflow.execute('uploadCollectorWorkflow', {
      args: [{ olderThanMs: 86_400_000 }],
      workflowId,
      taskQueue: api.config.temporal.taskQueue,
    });
    expect(deleted).toBe(1);
    const left = await api.database.db.query(`SELECT id FROM uploads WHERE id = ANY($1::uuid[])`, [ids]);
    expect(left).toEqual([{ id: ids[1] }]);
    await api.http.get(`/images/${ids[0]}`).expect(404);
    await recordReplayHistoriesOf(env.client, [workflowId]);
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLogger } from '../../src/logger';
import { webhooksWorkflowIds } from '../../src/modules/webhooks';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { apiClient, dataOf } from '../support/client';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/stack';
import { devServerEnv, workflowBundle } from '../support/temporal';

let env: TestWorkflowEnvironment;
let api: TestApi;
let receiver: http.Server;
let requests = 0;
let answered = 0;
beforeAll(async () => {
  // A dev server: the delivery is started with its search attributes, which it knows.
  env = await devServerEnv();
  api = await startTestApi({ temporal: env.client, env: { SHUTDOWN_GRACE: '20s' } });
  // A receiver that takes 1.5 s to answer: long enough to stop the worker in the middle of it.
  receiver = http.createServer((req, res) => {
    requests += 1;
    req.resume();
    setTimeout(() => {
      answered += 1;
      res.end('ok');
    }, 1500);
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await api?.close();
  await env?.teardown();
});

const newWorker = async () =>
  createWorker({ config: api.config, db: api.database.db, connection: env.nativeConnection, workflowBundle: await workflowBundle() });

test('a worker told to stop in the middle of an activity lets it finish and report before it exits', async () => {
  const seller = await registerSeller(api);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const client = apiClient(api, seller.bearer);
  const endpoint = await dataOf(client.POST('/seller/webhooks', { body: { url, subscriptions: ['LISTING_CREATED'] } }), 201);
  const { eventId } = await dataOf(client.POST('/seller/webhooks/{webhookId}/test', { params: { path: { webhookId: endpoint.id } } }), 202);
  await createStartDispatcher(api.config, api.database.db, env.client, createLogger('silent', 'start-dispatcher')).dispatchBatch();

  const worker = await newWorker();
  const running = worker.run();
  await eventually(async () => (requests === 1 ? true : null));
  worker.shutdown();
  await running;

  // The attempt ran to its answer and was recorded, inside the shutdown.
  expect(answered).toBe(1);
  const [delivery] = await api.database.db.query(`SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
  expect(delivery).toEqual({ status: 'SUCCEEDED', attempts: 1 });
  // Its completion reached Temporal: the next worker finishes the workflow without attempting again.
  const next = await newWorker();
  const result = await next.runUntil(env.client.workflow.getHandle(webhooksWorkflowIds.delivery(eventId, endpoint.id)).result());
  expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
  expect(requests).toBe(1);
  // The attempt was a local activity (a marker, no activity task), on the deliveries' own queue.
  const handle = env.client.workflow.getHandle(webhooksWorkflowIds.delivery(eventId, endpoint.id));
  expect((await handle.describe()).taskQueue).toBe(api.config.webhooks.taskQueue);
  const events = (await handle.fetchHistory()).events ?? [];
  expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
  expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
});

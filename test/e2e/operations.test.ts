import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AesGcmPayloadCodec } from '../../src/temporal/payload-codec';
import { startCodecServer } from '../../src/temporal/codec-server';
import { startMetricsServer, type MetricsServer } from '../../src/observability/metrics-server';
import { sdkMetrics } from '../../src/observability/worker-metrics';
import { ensureRetentionSchedule, RETENTION_SCHEDULE_ID } from '../../src/temporal/retention-schedule';
import { casesWorkflowIds } from '../../src/modules/cases';
import { webhooksWorkflowIds } from '../../src/modules/webhooks';
import { WEBHOOK_SEARCH_ATTRIBUTES } from '../../src/domain/webhooks/search-attributes';
import { registerSeller } from '../support/api';
import { TEMPORAL_CLI } from '../support/env';
import { seedCatalog } from '../support/fixtures';
import { apiClient, expectStatus } from '../support/client';
import { boughtOrder, disputeFirstItem } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';
import { freePort } from '../support/temporal';
import { WebhookReceiver } from '../support/webhook-receiver';

let stack: TestStack;
let receiver: WebhookReceiver;
let workerScrape: MetricsServer;
let apiScrape: MetricsServer;
let sdkPort: number;

beforeAll(async () => {
  sdkPort = await freePort();
  stack = await startStack({}, { sdkMetricsPort: sdkPort });
  receiver = await WebhookReceiver.start();
  workerScrape = await startMetricsServer(stack.workerMetrics.registry, { host: '127.0.0.1', port: 0 }, [sdkMetrics(sdkPort)]);
  apiScrape = await startMetricsServer(stack.api.metrics.registry, { host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(async () => {
  await workerScrape?.close();
  await apiScrape?.close();
  await receiver?.close();
  await stack?.stop();
});

const scrape = async (server: MetricsServer) => (await fetch(server.url)).text();
function sample(text: string, name: string, labels: string): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** One delivered webhook: listing created → event → fan-out → start → attempt → receiver. */
async function deliveredWebhook() {
  const { api } = stack;
  const seller = await registerSeller(api);
  const endpoint = await receiver.register(api, seller);
  const created = await apiClient(api, seller.bearer).POST('/seller/listings', {
    body: { urn: await anyItemUrn(), quantity: 1, price: 999, condition: 'NEAR_MINT', language: 'en' },
  });
  expect(created.response.status).toBe(201);
  const delivery = await eventually(async () => {
    const [row] = await api.database.db.query(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCEEDED'`, [
      endpoint.id,
    ]);
    return row as { event_id: string } | undefined;
  }, 30_000);
  return { seller, endpoint, eventId: delivery.event_id };
}

async function anyItemUrn(): Promise<string> {
  const { items } = await seedCatalog(stack.api.database.db);
  return items[0]!.urn;
}

describe('operating the stack (API + worker + Temporal dev server + Postgres)', () => {
  it('the worker scrape shows its own instruments and the Temporal SDK metrics; the API scrape its routes', async () => {
    await deliveredWebhook();
    // The SDK counts the completion once the workflow task that completes the delivery is done.
    const worker = await eventually(async () => {
      const text = await scrape(workerScrape);
      const completed = /^temporal_workflow_completed(_total)?\{.*workflow_type="webhookDeliveryWorkflow".*\} \d+/m.test(text);
      return (sample(text, 'webhook_delivery_attempts_total', 'outcome="delivered"') ?? 0) >= 1 && completed ? text : null;
    });
    expect(sample(worker, 'workflow_starts_total', 'workflow_type="webhookDeliveryWorkflow",result="started"')).toBeGreaterThanOrEqual(1);
    // The dispatcher runs on the worker's connection: the idle worker took the delivery's first task straight from the start.
    expect(sample(worker, 'workflow_starts_eager_total', 'workflow_type="webhookDeliveryWorkflow"')).toBeGreaterThanOrEqual(1);
    expect(sample(worker, 'outbox_pending_rows', 'outbox="outbox_events"')).toBe(0);
    expect(sample(worker, 'outbox_lag_seconds', 'outbox="workflow_starts"')).toBe(0);
    expect(worker).toMatch(/^db_pool_connections_max\{process="worker"\} \d+/m);
    // From the SDK's Prometheus exporter (Runtime telemetry), appended to the same scrape: an
    // attempt is a local activity, on the deliveries' own queue.
    expect(worker).toMatch(
      /^temporal_local_activity_execution_latency_(seconds_)?count\{.*activity_type="attemptWebhookDelivery".*task_queue="marketplace-webhooks".*\} \d+/m,
    );

    const api = await scrape(apiScrape);
    expect(
      sample(api, 'http_request_duration_seconds_count', 'method="POST",route="/seller/listings",status="201"'),
    ).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('webhook deliveries are found by seller, endpoint and event type, carry a summary, and those that did not arrive their outcome', async () => {
    const { api, env } = stack;
    const list = async (query: string) => {
      const ids: string[] = [];
      for await (const wf of env.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids.length > 0 ? ids : null;
    };
    const { seller, endpoint, eventId } = await deliveredWebhook();
    const ofSeller = `WebhookSellerId = '${seller.id}' AND WebhookEventType = 'LISTING_CREATED'`;
    // A delivered delivery completes without an outcome: one upsert fewer on the common path.
    const found = await eventually(() => list(`${ofSeller} AND ExecutionStatus = 'Completed' AND WebhookOutcome IS NULL`), 30_000);
    expect(found).toEqual([webhooksWorkflowIds.delivery(eventId, endpoint.id)]);
    const description = await env.client.workflow.getHandle(found[0]!).describe();
    expect(description.typedSearchAttributes.get(WEBHOOK_SEARCH_ATTRIBUTES.endpointId)).toBe(endpoint.id);
    expect(description.typedSearchAttributes.get(WEBHOOK_SEARCH_ATTRIBUTES.outcome)).toBeUndefined();
    expect(await description.staticSummary()).toBe(
      `Webhook LISTING_CREATED event ${eventId} to endpoint ${endpoint.id} of seller ${seller.id}`,
    );

    // A receiver that answers 410 Gone: its delivery ends `gone`, and says so.
    const gone = await WebhookReceiver.start();
    gone.respond = () => ({ status: 410 });
    try {
      const goneEndpoint = await gone.register(api, seller);
      const created = await apiClient(api, seller.bearer).POST('/seller/listings', {
        body: { urn: await anyItemUrn(), quantity: 1, price: 1099, condition: 'NEAR_MINT', language: 'en' },
      });
      expect(created.response.status).toBe(201);
      const ended = await eventually(() => list(`${ofSeller} AND WebhookOutcome = 'gone'`), 30_000);
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatch(new RegExp(`^webhook:[^:]+:${goneEndpoint.id}$`));
      expect(gone.received).toHaveLength(1);
    } finally {
      await gone.close();
    }
  }, 120_000);

  it("a case's history holds ciphertext only; the codec endpoint shows it to an operator", async () => {
    const { api, env } = stack;
    const { seller, buyer, purchaseId, order } = await boughtOrder(api, {
      buyerPrefix: 'opsbuyer',
      quantity: 1,
      price: 1200,
      successUrl: 'https://shop.example/thanks',
    });
    const comment = 'Sleeve torn, corner creased: personal-note-7f3a';
    const opened = await disputeFirstItem(api, buyer, { purchaseId, order }, 'Opened');
    // The proposal, comment included, reaches the workflow as an Update's argument (a payload).
    await expectStatus(
      apiClient(api, seller.bearer).PUT('/seller/cases/{id}', {
        params: { path: { id: opened.id } },
        body: { action: 'propose', type: 'REFUND', amount: 1200, comment },
      }),
      200,
    );

    const workflowId = casesWorkflowIds.case(opened.id);
    const raw = await env.client.workflowService.getWorkflowExecutionHistory({ namespace: env.namespace, execution: { workflowId } });
    const bytes = Buffer.from(JSON.stringify(raw.toJSON()));
    const historyText = Buffer.concat([bytes, Buffer.from(bytes.toString(), 'base64')]).toString('latin1');
    expect(historyText).not.toContain('personal-note-7f3a');
    expect(historyText).toContain(Buffer.from('binary/encrypted').toString('base64'));

    // The CLI without the codec prints ciphertext; through the codec endpoint it prints the comment.
    // Asynchronously: the codec endpoint answering the CLI runs in this process. The CLI prints
    // payload bytes in base64; what an operator reads is every payload's data, decoded.
    const show = async (extra: string[]) => {
      const { stdout } = await promisify(execFile)(TEMPORAL_CLI, [
        'workflow',
        'show',
        '--address',
        env.address,
        '--namespace',
        api.config.temporal.namespace,
        '--workflow-id',
        workflowId,
        '--output',
        'json',
        ...extra,
      ]);
      const data: string[] = [];
      JSON.parse(stdout, (key, value: unknown) => {
        if (key === 'data' && typeof value === 'string') data.push(Buffer.from(value, 'base64').toString('utf8'));
        return value;
      });
      return data.join('\n');
    };
    expect(await show([])).not.toContain('personal-note-7f3a');
    const codec = await startCodecServer(new AesGcmPayloadCodec(api.config.temporal.payloadKeys), {
      host: '127.0.0.1',
      port: 0,
      corsOrigins: [],
    });
    try {
      expect(await show(['--codec-endpoint', codec.url])).toContain('personal-note-7f3a');
    } finally {
      await codec.close();
    }
  }, 180_000);

  it('the retention schedule prunes finished deliveries, their events and made starts', async () => {
    const { api, env } = stack;
    const { eventId } = await deliveredWebhook();
    await ensureRetentionSchedule(env.client, { taskQueue: api.config.temporal.taskQueue, everyMs: 3_600_000, olderThanMs: 0 });
    // A second replica's call updates the same schedule rather than failing.
    await ensureRetentionSchedule(env.client, { taskQueue: api.config.temporal.taskQueue, everyMs: 3_600_000, olderThanMs: 0 });
    const handle = env.client.schedule.getHandle(RETENTION_SCHEDULE_ID);
    await handle.trigger();
    await eventually(async () => {
      const rows = await api.database.db.query(`SELECT 1 FROM outbox_events WHERE id = $1`, [eventId]);
      return rows.length === 0 ? true : null;
    }, 30_000);
    const [made] = await api.database.db.query(
      `SELECT count(*)::int AS n FROM workflow_starts WHERE started_at IS NOT NULL AND workflow_type = 'webhookDeliveryWorkflow'`,
    );
    expect(made.n).toBe(0);
    const description = await handle.describe();
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'outboxRetentionWorkflow',
      args: [{ olderThanMs: 0 }],
    });
    expect(description.info.recentActions.length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});

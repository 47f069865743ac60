import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { casesWorkflowIds } from '../../src/modules/cases';
import { registerSeller } from '../support/api';
import { apiClient, dataOf, rawText } from '../support/client';
import { boughtOrder, disputeFirstItem } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';
import { startTestTracing, Trace, type TestTracing } from '../support/tracing';

// The whole system with tracing on, exporting to memory: one trace per request, through the
// start outbox, Temporal, the workflow and its activities down to the SQL they run.
let stack: TestStack;
let traced: TestTracing;
beforeAll(async () => {
  traced = startTestTracing();
  stack = await startStack({}, { tracing: traced.tracing });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await traced?.tracing.shutdown();
});

const spans = () => traced.exporter.getFinishedSpans();
const isSql = (s: ReadableSpan) => s.kind === SpanKind.CLIENT && s.attributes['db.system'] === 'postgresql';
const statementOf = (s: ReadableSpan) => String(s.attributes['db.statement'] ?? '');

/** The SERVER span of the one request that answered `path`, its route template as its name. */
function serverSpan(name: string, path: string): ReadableSpan {
  const found = spans().filter((s) => s.kind === SpanKind.SERVER && s.name === name && s.attributes['url.path'] === path);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/**
 * Waits until every span of the trace has its parent in it. Spans arrive as they end: a
 * workflow's activity-schedule span is exported at the workflow task after the activity's own.
 */
async function connected(traceId: string, root: ReadableSpan): Promise<void> {
  let orphans: string[] = [];
  await eventually(async () => {
    orphans = Trace.of(spans(), traceId)
      .orphans(root.spanContext().spanId)
      .map((s) => s.name);
    return orphans.length === 0 ? true : undefined;
  }, 15_000).catch(() => undefined);
  expect(orphans).toEqual([]);
}

it('a listing import is one trace: the request and its SQL, the start through the outbox, the workflow, its activities and their SQL', async () => {
  const { api } = stack;
  const seller = await registerSeller(api, 'tracedseller');
  const imported = await dataOf(
    apiClient(api, seller.bearer).POST('/seller/imports', {
      body: 'urn,condition,language,price,quantity\nurn:mts:card:none,MINT,en,100,1\n',
      ...rawText('text/csv'),
    }),
    202,
  );

  const request = serverSpan('POST /seller/imports', '/seller/imports');
  // No traceparent came in: the request starts the trace.
  expect(request.parentSpanId).toBeUndefined();
  expect(request.attributes).toMatchObject({
    'http.route': '/seller/imports',
    'http.request.method': 'POST',
    'http.response.status_code': 202,
  });
  const traceId = request.spanContext().traceId;

  // The workflow's run span is exported when it ends, after its last activity.
  await eventually(
    async () => spans().find((s) => s.name === 'RunWorkflow:listingImportWorkflow' && s.spanContext().traceId === traceId),
    30_000,
  );
  const t = Trace.of(spans(), traceId);

  // The request's own SQL, the start intent among it, are its children.
  const requestSql = t.childrenOf(request).filter(isSql);
  expect(requestSql.map(statementOf)).toEqual(expect.arrayContaining([expect.stringContaining('INSERT INTO workflow_starts')]));

  // The dispatcher made the start later, in the worker, inside the trace stored with the intent.
  const start = t.one('StartWorkflow:listingImportWorkflow');
  expect(start.parentSpanId).toBe(request.spanContext().spanId);
  expect(start.startTime[0] * 1e9 + start.startTime[1]).toBeGreaterThanOrEqual(request.startTime[0] * 1e9 + request.startTime[1]);
  const run = t.one('RunWorkflow:listingImportWorkflow');
  expect(run.parentSpanId).toBe(start.spanContext().spanId);
  const schedule = t.one('StartActivity:startImport');
  expect(schedule.parentSpanId).toBe(run.spanContext().spanId);
  const activity = t.one('RunActivity:startImport');
  expect(activity.parentSpanId).toBe(schedule.spanContext().spanId);
  // Temporal's spans are INTERNAL; the request's is SERVER and the SQL's CLIENT.
  expect([start, run, schedule, activity].map((s) => s.kind)).toEqual(Array(4).fill(SpanKind.INTERNAL));
  const activitySql = t.childrenOf(activity).filter(isSql);
  expect(activitySql.map(statementOf)).toEqual(expect.arrayContaining([expect.stringMatching(/listing_imports/)]));

  // Nothing in the trace hangs loose: every span's parent is in it (once the last are exported).
  await connected(traceId, request);
  // The import did finish, so what the trace shows happened.
  const [row] = await api.database.db.query(`SELECT status FROM listing_imports WHERE id = $1`, [imported.id]);
  expect(row?.status).toBe('COMPLETED');
}, 90_000);

it("a case action continues the caller's traceparent through the Update, the workflow's handler and its activity", async () => {
  const { api, env } = stack;
  const bought = await boughtOrder(api, { buyerPrefix: 'tracedcase', quantity: 1, successUrl: 'https://shop.example/thanks' });
  const opened = await disputeFirstItem(api, bought.buyer, bought, 'Bent');
  await eventually(() =>
    env.client.workflow
      .getHandle(casesWorkflowIds.case(opened.id))
      .describe()
      .catch(() => undefined),
  );

  // A caller that traces sends its context; the request joins that trace under the caller's span.
  const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpanId = '00f067aa0ba902b7';
  await dataOf(
    apiClient(api, bought.seller.bearer).PUT('/seller/cases/{id}', {
      params: { path: { id: opened.id } },
      headers: { traceparent: `00-${callerTraceId}-${callerSpanId}-01` },
      body: { action: 'propose', type: 'REFUND', amount: 1500, comment: 'Full refund' },
    }),
  );

  const request = serverSpan('PUT /seller/cases/:id', `/seller/cases/${opened.id}`);
  expect(request.spanContext().traceId).toBe(callerTraceId);
  expect(request.parentSpanId).toBe(callerSpanId);
  await eventually(async () => spans().find((s) => s.name === 'RunActivity:recordCaseChange' && s.spanContext().traceId === callerTraceId));
  await eventually(async () => spans().find((s) => s.name === 'HandleUpdate:propose' && s.spanContext().traceId === callerTraceId));
  const t = Trace.of(spans(), callerTraceId);

  // A case action is an update-with-start (docs/cases.md), traced under that name.
  const update = t.one('UpdateWithStartWorkflow:propose');
  expect(update.parentSpanId).toBe(request.spanContext().spanId);
  const validate = t.one('ValidateUpdate:propose');
  expect(validate.parentSpanId).toBe(update.spanContext().spanId);
  const handler = t.one('HandleUpdate:propose');
  expect(handler.parentSpanId).toBe(update.spanContext().spanId);
  const schedule = t.one('StartActivity:recordCaseChange');
  expect(schedule.parentSpanId).toBe(handler.spanContext().spanId);
  const activity = t.one('RunActivity:recordCaseChange');
  expect(activity.parentSpanId).toBe(schedule.spanContext().spanId);
  expect(t.childrenOf(activity).filter(isSql).length).toBeGreaterThan(0);
  // The Update answered after its activity wrote the change: the request span outlasts both.
  const end = (s: ReadableSpan) => s.endTime[0] * 1e9 + s.endTime[1];
  expect(end(request)).toBeGreaterThanOrEqual(end(activity));
  await connected(callerTraceId, request);
  // Every span of the request's trace is under the caller's span: the request span is the only root.
  expect(Trace.of(spans(), callerTraceId).spans.filter((s) => s.parentSpanId === callerSpanId)).toEqual([request]);
}, 90_000);

it('SQL outside traced work records no span: the dispatcher polling all along opened no trace of its own', async () => {
  // The statements above prove pg is instrumented; the dispatcher's polls and claims are not among them.
  expect(spans().filter(isSql).length).toBeGreaterThan(0);
  const loose = spans().filter((s) => isSql(s) && s.parentSpanId === undefined);
  expect(loose.map(statementOf)).toEqual([]);
});

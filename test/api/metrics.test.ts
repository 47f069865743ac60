import { startMetricsServer, type MetricsServer } from '../../src/observability/metrics-server';
import { registerUser, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
let scrape: MetricsServer;

beforeAll(async () => {
  api = await startTestApi();
  scrape = await startMetricsServer(api.metrics.registry, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await scrape.close();
  await api.close();
});

async function metricsText(): Promise<string> {
  const res = await fetch(scrape.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

/** The value of one sample line, e.g. `name{a="b"} 3`. */
function sample(text: string, name: string, labels: string): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('request durations are counted by route template and status, never by raw path', async () => {
  const user = await registerUser(api);
  await api.http.get(`/profile/${user.username}`).expect(200);
  await api.http.get('/profile/nobody-by-this-name').expect(404);
  await api.http.get('/no/such/route/123').expect(404);

  const text = await metricsText();
  expect(sample(text, 'http_request_duration_seconds_count', 'method="POST",route="/auth/register",status="201"')).toBe(1);
  expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/profile/:identifier",status="200"')).toBe(1);
  expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/profile/:identifier",status="404"')).toBe(1);
  expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="unmatched",status="404"')).toBe(1);
  expect(text).not.toContain(user.username);
  expect(text).not.toContain('/no/such/route');
  expect(sample(text, 'http_request_duration_seconds_bucket', 'le="+Inf",method="POST",route="/auth/register",status="201"')).toBe(1);
});

test('in-flight requests and the database pool are visible', async () => {
  const text = await metricsText();
  expect(sample(text, 'http_requests_in_flight', '')).toBe(0);
  // The test database's pool size, read from the pool the app really uses.
  expect(sample(text, 'db_pool_connections_max', 'process="api"')).toBe((api.database.db.options.extra as { max: number }).max);
  expect(sample(text, 'db_pool_connections_idle', 'process="api"')).toBeGreaterThanOrEqual(1);
  expect(sample(text, 'db_pool_waiting_requests', 'process="api"')).toBe(0);
  expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
});

test('only GET /metrics is served on the metrics listener', async () => {
  expect((await fetch(scrape.url.replace('/metrics', '/healthz'))).status).toBe(404);
  expect((await fetch(scrape.url, { method: 'POST' })).status).toBe(404);
});

import { startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { JSON_BODY_LIMIT: '1kb' } });
});
afterAll(() => api.close());

describe('HTTP conventions', () => {
  it('answers unknown routes with a 404 problem', async () => {
    const res = await api.http.get('/no/such/route').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, type: '/problems/not-found', instance: '/no/such/route' });
  });

  it('answers a wrong method with 405', async () => {
    const res = await api.http.put('/healthz').expect(405);
    expect(res.body.type).toBe('/problems/method-not-allowed');
  });

  it('gives every response a request id, echoing a sane incoming one', async () => {
    const own = await api.http.get('/healthz').set('X-Request-Id', 'abc-123');
    expect(own.headers['x-request-id']).toBe('abc-123');
    const generated = await api.http.get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects malformed JSON with 400 and oversized bodies with 413, without stack traces', async () => {
    const malformed = await api.http.post('/auth/register').set('Content-Type', 'application/json').send('{"email":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.type).toBe('/problems/malformed-body');
    expect(JSON.stringify(malformed.body)).not.toMatch(/at .*\.js:\d+/);

    const big = await api.http.post('/auth/register').send({ email: 'x@y.z', username: 'abc', password: 'p'.repeat(5000) });
    expect(big.status).toBe(413);
    expect(big.body.type).toBe('/problems/payload-too-large');
  });

  it('writes every JSON answer, problems included, in ASCII with \\u escapes, keeping its content type', async () => {
    // The OpenAPI document carries "→" in its texts.
    const doc = await api.http.get('/openapi.json').buffer(true).expect(200);
    expect(doc.headers['content-type']).toMatch(/^application\/json/);
    expect(doc.text).toMatch(/\\u2192/);
    expect(Buffer.from(doc.text).every((b) => b < 0x80)).toBe(true);
    expect(JSON.stringify(doc.body)).toMatch(/→/);

    const problem = await api.http
      .post('/search/lookup/bulk')
      .send({ urns: ['pokémon/x'] })
      .expect(400);
    expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(problem.text).toContain('pok\\u00e9mon/x');
    expect(problem.body.errors[0].message).toContain('"pokémon/x"');
  });

  it('refuses a body in an encoding the route does not accept', async () => {
    const res = await api.http.post('/auth/register').type('form').send('email=a@b.c&username=abc&password=0123456789');
    expect(res.status).toBe(415);
  });

  it('reports readiness per dependency', async () => {
    // This API's Temporal connection points nowhere, so it is not ready.
    const res = await api.http.get('/readyz').expect(503);
    expect(res.body).toMatchObject({ postgres: 'ok', temporal: 'down' });
    await api.http.get('/healthz').expect(200, { status: 'ok' });
  });

  it('serves the documentation page from local files', async () => {
    const page = await api.http.get('/docs').expect(200);
    expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js');
    const asset = await api.http.get('/docs/assets/swagger-ui-bundle.js').expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    await api.http.get('/docs/assets/package.json').expect(400);
  });
});

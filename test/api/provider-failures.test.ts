import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { png } from '../support/images';

/**
 * No provider's or exception's own words in a 5xx body: each adapter the API calls while
 * answering is made to fail with a distinctive text, and the answer must be a generic problem
 * without it, the text going to the log with the request id instead. The API reaches two
 * adapters while answering: address lookup (Loqate) and image storage; e-mail goes through the
 * outbox and carriers are polled by the worker, so neither can shape an HTTP answer.
 */
const SECRET = 'PROVIDER-SECRET-acct-4711';

/** Log lines of one test API, parsed. */
function capturedLog() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, log: pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
}

describe('Loqate address lookup failing', () => {
  // A stand-in for Loqate answering each path its own way of failing, each carrying SECRET.
  let loqate: Server;
  let api: TestApi;
  let bearer: { Authorization: string };
  const logged = capturedLog();
  let failure: 'error-item' | 'http-500' | 'not-json' = 'error-item';
  beforeAll(async () => {
    loqate = createServer((_req, res) => {
      if (failure === 'http-500') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${SECRET}: upstream database timeout`);
      } else if (failure === 'not-json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(`${SECRET} <html>maintenance</html>`);
      } else {
        const item = { Error: '3', Description: `Account out of credit (${SECRET})`, Cause: `${SECRET} has no credit`, Resolution: '' };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ Items: [item] }));
      }
    });
    await new Promise<void>((resolve) => loqate.listen(0, '127.0.0.1', resolve));
    const { port } = loqate.address() as AddressInfo;
    api = await startTestApi({
      env: { ADDRESS_LOOKUP_PROVIDER: 'loqate', LOQATE_KEY: 'test-key', LOQATE_URL: `http://127.0.0.1:${port}` },
      log: logged.log,
    });
    ({ bearer } = await registerUser(api));
  });
  afterAll(async () => {
    await api.close();
    await new Promise((resolve) => loqate.close(resolve));
  });

  it.each([
    ['error-item', '/user/addresses/lookup/find', { text: 'Basin Road' }],
    ['error-item', '/user/addresses/lookup/retrieve', { id: 'GB|RM|A|1' }],
    ['http-500', '/user/addresses/lookup/find', { text: 'Basin Road' }],
    ['not-json', '/user/addresses/lookup/retrieve', { id: 'GB|RM|A|1' }],
  ] as const)('%s on %s: 503 without the provider text, which is logged', async (how, route, body) => {
    failure = how;
    logged.lines.length = 0;
    const res = await api.http.post(route).set(bearer).send(body).expect(503);
    expect(res.body).toMatchObject({ status: 503, type: expect.stringContaining('address-lookup-unavailable') });
    expect(res.text).not.toContain(SECRET);
    expect(JSON.stringify(logged.lines)).toContain(SECRET);
  });
});

describe('image storage failing', () => {
  // The uploads directory sits under a file, so every write fails with an error naming the path.
  const under = path.join(mkdtempSync(path.join(os.tmpdir(), 'mts-storage-')), SECRET);
  writeFileSync(under, 'not a directory');
  let api: TestApi;
  const logged = capturedLog();
  beforeAll(async () => {
    api = await startTestApi({ env: { UPLOADS_DIR: path.join(under, 'uploads') }, log: logged.log });
  });
  afterAll(() => api.close());

  it('answers a generic 500 for an upload it cannot store, the error (with its path) logged', async () => {
    const { bearer } = await registerUser(api);
    const created = await api.http.post('/uploads').set(bearer).expect(201);
    const res = await api.http
      .put(`/uploads/${created.body.id}`)
      .set(bearer)
      .set('Content-Type', 'image/png')
      .send(await png());
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 500, type: expect.stringContaining('internal') });
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain('ENOTDIR');
    expect(JSON.stringify(logged.lines)).toContain(SECRET);
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../scripts/round-robin-proxy';
import { freePort } from '../support/temporal';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A target that records what reached it and answers with its name, a body echo and two cookies. */
async function target(name: string): Promise<{ url: string; seen: Seen[]; server: http.Server }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(201, { 'content-type': 'text/plain', 'x-target': name, 'set-cookie': ['a=1', 'b=2'] });
      res.end(`${name}:${body.length}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

let targets: Array<Awaited<ReturnType<typeof target>>>;
let proxy: RoundRobinProxy;
beforeAll(async () => {
  targets = [await target('one'), await target('two')];
  proxy = await startRoundRobinProxy({ targets: targets.map((t) => t.url), port: 0 });
});
afterAll(async () => {
  await proxy.close();
  for (const t of targets) await new Promise((r) => t.server.close(r));
});

it('sends requests to the targets in turn, with method, path, query, headers and body, and answers what they answered', async () => {
  const body = 'x'.repeat(1_000_000);
  const answers = [];
  for (let i = 0; i < 4; i += 1) {
    const res = await fetch(`${proxy.url}/things/${i}?q=${i}`, { method: 'POST', headers: { 'x-custom': `c${i}` }, body });
    answers.push({ status: res.status, text: await res.text(), target: res.headers.get('x-target'), cookies: res.headers.getSetCookie() });
  }
  expect(answers.map((a) => a.target)).toEqual(['one', 'two', 'one', 'two']);
  expect(answers.every((a) => a.status === 201 && a.text.endsWith(':1000000'))).toBe(true);
  expect(answers[0]!.cookies).toEqual(['a=1', 'b=2']);
  expect(proxy.counts).toEqual([2, 2]);
  const first = targets[0]!.seen[0]!;
  expect(first).toMatchObject({ method: 'POST', url: '/things/0?q=0', body });
  expect(first.headers).toMatchObject({ 'x-custom': 'c0', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http' });
  expect(first.headers['x-forwarded-host']).toBe(new URL(proxy.url).host);
  expect(targets[1]!.seen[0]!.url).toBe('/things/1?q=1');
});

it('answers 502 for a target that cannot be reached, and goes on with the others', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  const mixed = await startRoundRobinProxy({ targets: [dead, targets[0]!.url], port: 0 });
  try {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await fetch(`${mixed.url}/`)).status);
    expect(statuses).toEqual([502, 201, 502, 201]);
  } finally {
    await mixed.close();
  }
});

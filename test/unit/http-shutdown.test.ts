import { createServer, type Server } from 'node:http';
import { closeGracefully } from '../../src/observability/http-shutdown';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

test('a request in flight at shutdown gets its answer; new connections are refused', async () => {
  const { server, url } = await listen((_req, res) => setTimeout(() => res.end('done'), 400));
  // An idle keep-alive connection must not hold the shutdown open.
  await fetch(`${url}/warm`).then((r) => r.text());
  const inFlight = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, body: await r.text() }));
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  const closing = closeGracefully(server, 5000);
  await expect(fetch(`${url}/late`)).rejects.toThrow();
  await expect(inFlight).resolves.toEqual({ status: 200, body: 'done' });
  await expect(closing).resolves.toEqual({ forced: false });
  expect(Date.now() - started).toBeLessThan(2000);
});

test('a request that outlives the grace period is cut off and shutdown completes', async () => {
  const { server, url } = await listen(() => undefined);
  const hanging = fetch(`${url}/never`);
  hanging.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 100));
  await expect(closeGracefully(server, 300)).resolves.toEqual({ forced: true });
  await expect(hanging).rejects.toThrow();
});

// A minimal round-robin HTTP proxy in front of several API processes: what `npm start` runs on
// the public port when API_REPLICAS > 1, and what the replica end-to-end test runs. Production
// puts nginx there (deploy/nginx.conf, the compose production profile); this one exists so the
// same topology runs natively, without a dependency.
//
//   PROXY_TARGETS=http://127.0.0.1:3001,http://127.0.0.1:3002 PORT=3000 node -r ts-node/register scripts/round-robin-proxy.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Requests sent to each target so far, in the order of `targets`. */
  readonly counts: readonly number[];
  close(): Promise<void>;
}

/** Connection-level headers (RFC 9110 §7.6.1): they describe one hop and are not forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardable(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)));
}

/**
 * Sends each request to the next target in turn, streaming bodies both ways. It adds the
 * `X-Forwarded-For/-Proto/-Host` headers the API trusts (`app.proxy`) and answers 502 when the
 * chosen target cannot be reached (no retry on another: the request may have had effects;
 * clients retry, with an `Idempotency-Key` where it matters).
 */
export async function startRoundRobinProxy(options: { targets: string[]; port: number; host?: string }): Promise<RoundRobinProxy> {
  if (options.targets.length === 0) throw new Error('the proxy needs at least one target');
  const targets = options.targets.map((t) => new URL(t));
  const counts = targets.map(() => 0);
  // A fresh connection per request: a kept-alive one may be closed by the target's idle timeout
  // just as a request is sent on it, which would fail that request (and it cannot be resent).
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let next = 0;

  const server = http.createServer((req, res) => {
    const index = next;
    next = (next + 1) % targets.length;
    counts[index]! += 1;
    const target = targets[index]!;
    const headers = forwardable(req.headers);
    const client = req.socket.remoteAddress ?? '';
    const prior = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${String(prior)}, ${client}` : client;
    headers['x-forwarded-proto'] ??= 'http';
    headers['x-forwarded-host'] ??= req.headers.host ?? '';
    const upstream = http.request(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.headers));
        answer.pipe(res);
        answer.once('error', () => res.destroy());
      },
    );
    upstream.once('error', () => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(`upstream ${target.host} unreachable\n`);
    });
    // A client that goes away mid-request takes its upstream request with it.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    counts,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      agent.destroy();
    },
  };
}

if (require.main === module) {
  const targets = (process.env.PROXY_TARGETS ?? '').split(',').filter(Boolean);
  startRoundRobinProxy({ targets, port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' }).then(
    (proxy) => {
      console.log(`round-robin proxy on ${proxy.url} → ${targets.join(', ')}`);
      const stop = () => void proxy.close().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}

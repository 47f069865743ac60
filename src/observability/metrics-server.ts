import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Text appended to a scrape, e.g. the Temporal SDK's own exporter read over loopback. */
export type ExtraMetrics = () => Promise<string>;

/**
 * `GET /metrics` on its own listener, apart from the public API: the load balancer never routes
 * to it and a deployment exposes it only to the scraper (docs/operations.md).
 */
export async function startMetricsServer(
  registry: Registry,
  listen: { host: string; port: number },
  extra: ExtraMetrics[] = [],
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void Promise.all([registry.metrics(), ...extra.map((read) => read())]).then(
      (parts) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(parts.map((p) => (p.endsWith('\n') || p === '' ? p : `${p}\n`)).join(''));
      },
      (err: unknown) => {
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  return {
    url: `http://${listen.host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

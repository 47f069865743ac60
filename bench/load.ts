// One closed-loop HTTP load run (autocannon), shared by the benchmarks that measure endpoints.
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /**
   * A varied workload: each request's path and body, drawn anew for every request of every
   * connection (autocannon's setupRequest); `url` then gives only the host.
   */
  next?: () => { path: string; body?: string };
}

export interface LoadResult {
  rps: number;
  /** Latency percentiles, in ms. */
  p50: number;
  p99: number;
  /** Socket errors, timeouts and non-2xx answers. */
  errors: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const r = await autocannon({
    url: spec.url,
    method: spec.method,
    body: spec.body,
    headers: spec.headers,
    connections: spec.connections,
    duration: spec.durationSeconds,
    ...(spec.next ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...spec.next!() }) }] } : {}),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts };
}

/** `p50 / p99` of a run, in ms, as the reports print it. */
export const latency = (r: Pick<LoadResult, 'p50' | 'p99'>) => [r.p50, r.p99].map((ms) => ms.toFixed(ms < 10 ? 1 : 0)).join(' / ');

/**
 * Waits for the target to drain: when a run ends, the server still finishes the requests it
 * had queued (for a slow target, up to a second of database work). Measuring the next target
 * at once would charge that tail to it.
 */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));

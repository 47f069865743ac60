import type { Middleware } from 'koa';
import type { ApiMetrics } from '../../observability/api-metrics';

/**
 * Times every request by the route template the router matched (`/seller/listings/:id`), so a
 * million ids stay one series; anything no route matched (404 probes, scanners) shares the
 * label `unmatched`. Outermost, so the status is the one the client received.
 */
export function httpMetrics(metrics: ApiMetrics): Middleware {
  return async (ctx, next) => {
    metrics.inFlight.inc();
    const stop = metrics.requestDuration.startTimer();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } finally {
      metrics.inFlight.dec();
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const route = typeof matched === 'string' ? matched : 'unmatched';
      stop({ method: ctx.method, route, status: String(status) });
    }
  };
}

import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Middleware } from 'koa';

const tracer = trace.getTracer('marketplace-http');

/**
 * One SERVER span per request, continuing the caller's trace when it sends `traceparent`, named
 * by the route template the router matched (`PUT /seller/cases/:id`, just the method when none
 * matched) so names stay few. Everything the request does (pg statements, workflow starts it
 * records, Updates it sends) runs inside it. Outermost, so the status is the one the client got.
 * Added only when tracing is on (docs/operations.md, "Tracing").
 */
export function httpTracing(): Middleware {
  return async (ctx, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path, 'url.scheme': ctx.protocol } },
      parent,
    );
    let status = 500;
    try {
      await context.with(trace.setSpan(parent, span), next);
      status = ctx.status;
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      throw err;
    } finally {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof matched === 'string') {
        span.updateName(`${ctx.method} ${matched}`);
        span.setAttribute('http.route', matched);
      }
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

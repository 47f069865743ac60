import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    log: Logger;
  }
}

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new one),
 * echoes it on the response, and logs one line per request with its outcome and duration.
 */
export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const requestId = ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    // With tracing on, the request's lines carry its trace id, so a trace leads to its logs.
    const traceId = trace.getActiveSpan()?.spanContext().traceId;
    ctx.state.log = logger.child(traceId ? { requestId, traceId } : { requestId });
    ctx.set(REQUEST_ID_HEADER, requestId);
    ctx.set('X-Content-Type-Options', 'nosniff');
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}

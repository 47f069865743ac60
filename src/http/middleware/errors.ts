import type { Context, Middleware } from 'koa';
import { DomainError, isUnreachableDependency } from '../../services/errors';
import { problem, PROBLEM_CONTENT_TYPE, statusOfKind, type Problem } from '../problem';
import type { ProblemCode } from '../../domain/problem-types';

/** Errors from Koa and its libraries (koa-body, @koa/router) carry an HTTP status. */
interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
}

const CODE_OF_STATUS: Record<number, ProblemCode> = {
  400: 'bad-request',
  404: 'not-found',
  405: 'method-not-allowed',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  501: 'not-implemented',
};

function toProblem(err: unknown): Problem {
  if (err instanceof DomainError) {
    return problem(statusOfKind(err.kind), err.code, err.message, err.extensions);
  }
  const e = (err ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (status && status >= 400 && status < 500) {
    // Body parser failures: malformed JSON, too large, wrong encoding.
    if (err instanceof SyntaxError || e.type === 'entity.parse.failed')
      return problem(400, 'malformed-body', 'The request body is not valid JSON.');
    if (e.type === 'entity.too.large' || status === 413) {
      return problem(413, 'payload-too-large', 'The request body is larger than this route accepts.');
    }
    return problem(status, CODE_OF_STATUS[status] ?? 'bad-request', e.expose ? e.message : undefined);
  }
  // The database (or another dependency) restarting is an outage to wait out, not a fault: 503 like Temporal down.
  if (isUnreachableDependency(err))
    return problem(503, 'temporarily-unavailable', 'A service this request needs is not reachable; try again shortly.');
  return problem(500, 'internal', 'An unexpected error occurred. Quote the request id when reporting it.');
}

/**
 * The 401 challenge: both schemes the API takes. When a token or key was sent and refused, its
 * scheme carries `error="invalid_token"` (RFC 6750 §3.1); with no credentials, no error code.
 */
function challenge(rejected: 'bearer' | 'apikey' | undefined): string {
  const invalid = ', error="invalid_token", error_description="The credentials are invalid, expired or revoked"';
  return `Bearer realm="marketplace"${rejected === 'bearer' ? invalid : ''}, ApiKey realm="marketplace"${rejected === 'apikey' ? invalid : ''}`;
}

function send(ctx: Context, body: Problem): void {
  ctx.status = body.status;
  if (body.status === 401) ctx.set('WWW-Authenticate', challenge(ctx.state.rejectedCredentials));
  if (typeof body.retryAfter === 'number') ctx.set('Retry-After', String(body.retryAfter));
  ctx.type = PROBLEM_CONTENT_TYPE;
  ctx.body = { ...body, instance: ctx.path, requestId: ctx.state.requestId };
}

/**
 * An unanswered request: no route matches the path (404), or the path exists but not with this
 * method (405 with `Allow`). A method the router does not implement at all (TRACE, PROPFIND…)
 * is answered the same way, never 501/500: what the client needs is the `Allow` list.
 */
function unrouted(ctx: Context): Problem | null {
  if (ctx.body !== undefined && ctx.body !== null) return null;
  if (ctx.status !== 404 && ctx.status !== 405 && ctx.status !== 501) return null;
  const allow = ctx.response.get('Allow');
  if (ctx.status === 404 || !allow) {
    ctx.remove('Allow');
    return problem(404, 'not-found', `No route matches ${ctx.method} ${ctx.path}.`);
  }
  return problem(405, 'method-not-allowed', `${ctx.path} accepts ${allow}.`);
}

/**
 * The one place errors become HTTP responses: RFC 9457 problem+json, never a stack trace.
 * Unknown routes and methods fall through to a 404 or 405 problem as well.
 */
export function problemErrors(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      const answer = unrouted(ctx);
      if (answer) send(ctx, answer);
    } catch (err) {
      const body = toProblem(err);
      if (body.status >= 500) ctx.state.log.error({ err }, 'request failed');
      send(ctx, body);
    }
  };
}

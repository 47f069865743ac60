import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Authenticator, Principal } from '../services/auth/authenticator';
import { DomainError, forbidden, invalid, unauthenticated } from '../services/errors';
import type { Logger } from '../logger';
import { toJsonBytes } from '../json-bytes';
import { requestHash, type IdempotencyKeys, type StoredAnswer } from '../services/idempotency/idempotency-keys';
import { JsonBytes, takesIdempotencyKey, type AnyRoute, type AuthLevel, type HandlerResult } from './route';
import type { CorsPath } from './middleware/cors';
import { illFormedFields } from './text';
import { partValidator } from './validation';
import type { AnswerBuffers } from './answer-buffers';

export interface RouterDeps {
  authenticator: Authenticator;
  idempotencyKeys: IdempotencyKeys;
  isActiveSeller: (userId: string) => Promise<boolean>;
  isOperator: (userId: string) => Promise<boolean>;
  validateResponses: boolean;
  logger: Logger;
  /** Where answers sent in pieces (`JsonBytes`) are joined. */
  answerBuffers: AnswerBuffers;
}

const MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

/** A body in an encoding the route does not declare is refused rather than guessed at. */
function checkBodyType(ctx: Context, route: AnyRoute): void {
  const raw = route.request?.rawBody;
  if (raw) {
    if (!ctx.is(raw.mediaTypes)) {
      throw new DomainError('unsupported-media-type', 'unsupported-media-type', `Send the body as ${raw.mediaTypes.join(' or ')}.`);
    }
    return;
  }
  if (!route.request?.body || !ctx.request.length) return;
  const accepted = (route.request.bodyTypes ?? ['json']).map((t) => MEDIA_TYPES[t]);
  if (!ctx.is(accepted)) {
    throw new DomainError('unsupported-media-type', 'unsupported-media-type', `Send the body as ${accepted.join(' or ')}.`);
  }
}

const AUTH_HEADER = /^(Bearer|ApiKey)\s+(\S+)$/i;

async function resolvePrincipal(ctx: Context, level: AuthLevel, deps: RouterDeps): Promise<Principal | null> {
  if (level === 'public') return null;
  const match = AUTH_HEADER.exec(ctx.get('authorization'));
  if (!match) throw unauthenticated();
  const kind = match[1]!.toLowerCase() === 'bearer' ? 'bearer' : 'apikey';
  const principal = await deps.authenticator.authenticate(kind, match[2]!);
  if (!principal) {
    // Credentials were sent and refused: the challenge says so (RFC 6750 §3.1), so a client
    // knows to refresh or sign in again rather than to add credentials.
    ctx.state.rejectedCredentials = kind;
    throw unauthenticated('The access token or API key is invalid, expired or revoked.');
  }
  if ((level === 'bearer' || level === 'operator') && principal.via !== 'bearer') {
    throw forbidden(
      'bearer-token-required',
      "This route accepts only the user's own OAuth access token, not a personal access token or a third-party application's token.",
    );
  }
  if (level === 'seller' && !(await deps.isActiveSeller(principal.userId))) {
    throw forbidden('seller-account-required', 'This route requires an active seller account; create one with POST /seller.');
  }
  if (level === 'operator' && !(await deps.isOperator(principal.userId))) {
    throw forbidden('operator-required', 'This route is for marketplace operators (granted with `npm run operators -- grant`).');
  }
  return principal;
}

/**
 * Refuses any string of the request that is not well-formed Unicode or holds NUL, before a
 * schema or a handler sees it, so no route has to remember to (docs/conventions.md, "Text").
 */
function checkText(ctx: Context): void {
  const errors = [
    ...illFormedFields(ctx.params, 'params'),
    ...illFormedFields({ ...ctx.query }, 'query'),
    ...illFormedFields(ctx.request.body, 'body'),
    ...illFormedFields(ctx.headers, 'headers'),
  ];
  if (errors.length) throw invalid('validation-failed', 'The request is invalid; see `errors` for each field.', errors);
}

const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/**
 * The request's `Idempotency-Key`, if any: 1–255 visible ASCII characters, or a 400. A header
 * sent empty is refused like any other malformed key, not taken as "no key": the client meant
 * its request to be idempotent, and running it without protection would break that promise.
 */
function idempotencyKeyOf(ctx: Context): string | null {
  const sent = ctx.headers['idempotency-key'];
  if (sent === undefined) return null;
  const key = Array.isArray(sent) ? sent.join(', ') : sent;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw invalid('validation-failed', 'The request is invalid; see `errors` for each field.', [
      { in: 'headers', field: 'Idempotency-Key', message: '"Idempotency-Key" must be 1-255 visible ASCII characters' },
    ]);
  }
  return key;
}

/** The answer as bytes to keep for replays; null for a streamed body, which is not kept. */
function storable(result: HandlerResult): StoredAnswer | null {
  const { status, headers = {}, body, contentType } = result;
  if (body instanceof JsonBytes) return { status, headers, contentType: 'application/json', body: body.joined() };
  if (body === undefined || body === null) return { status, headers, contentType: null, body: null };
  if (Buffer.isBuffer(body)) return { status, headers, contentType: contentType ?? 'application/octet-stream', body };
  if (typeof body === 'string') return { status, headers, contentType: contentType ?? 'text/plain', body: Buffer.from(body) };
  if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe !== 'function') {
    return { status, headers, contentType: contentType ?? 'application/json', body: toJsonBytes(body) };
  }
  return null;
}

/** Sends a stored answer again, with its original status; `Idempotent-Replayed` tells it apart. */
function replay(ctx: Context, answer: StoredAnswer): void {
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.set('Idempotent-Replayed', 'true');
  if (answer.body) {
    ctx.body = answer.body;
    if (answer.contentType) ctx.type = answer.contentType;
  }
}

/** `/a/{id}/b` (OpenAPI) → `/a/:id/b` (Koa). */
export const toKoaPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

function routeMiddleware(route: AnyRoute, deps: RouterDeps): Middleware {
  const req = route.request ?? {};
  const validate = {
    params: req.params && partValidator<Record<string, string>>(req.params, 'params'),
    query: req.query && partValidator<Record<string, unknown>>(req.query, 'query'),
    body: req.body && partValidator<unknown>(req.body, 'body'),
  };
  return async (ctx) => {
    const principal = await resolvePrincipal(ctx, route.auth, deps);
    checkBodyType(ctx, route);
    checkText(ctx);
    const params = validate.params ? validate.params(ctx.params) : ctx.params;
    const query = validate.query ? validate.query({ ...ctx.query }) : {};
    const body = validate.body ? validate.body(ctx.request.body ?? {}) : undefined;

    const key = principal && takesIdempotencyKey(route) ? idempotencyKeyOf(ctx) : null;
    let result: HandlerResult;
    if (key && principal) {
      const claim = await deps.idempotencyKeys.claim(
        principal.userId,
        key,
        requestHash([ctx.method, ctx.path, ctx.querystring, ctx.request.body ?? null]),
      );
      if (claim.kind === 'replay') return replay(ctx, claim.answer);
      ctx.state.idempotencyKey = key;
      try {
        result = await deps.idempotencyKeys.holding(principal.userId, key, () => route.handler({ params, query, body, principal, ctx }));
      } catch (err) {
        // Nothing to store: the retry runs again when the failed action committed nothing (case
        // actions are also recognised by their update id); a claim marked applied is kept.
        await deps.idempotencyKeys.release(principal.userId, key);
        throw err;
      }
      const answer = storable(result);
      if (answer) await deps.idempotencyKeys.complete(principal.userId, key, answer);
      else await deps.idempotencyKeys.release(principal.userId, key);
    } else {
      result = await route.handler({ params, query, body, principal, ctx });
    }

    const spec = route.responses[result.status];
    if (deps.validateResponses) {
      if (!spec) throw new Error(`${route.operationId} answered ${result.status}, which its route does not declare`);
      if (spec.schema) {
        const body = result.body instanceof JsonBytes ? JSON.parse(result.body.joined().toString('utf8')) : result.body;
        const { error } = spec.schema.validate(body, { abortEarly: false });
        if (error) throw new Error(`${route.operationId} response does not match its schema: ${error.message}`);
      }
    }
    ctx.status = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    if (result.body instanceof JsonBytes) {
      const { bytes, sent } = deps.answerBuffers.assemble(result.body.parts);
      // 'finish': Node has handed the whole response to the kernel, so the buffer may be reused.
      if (sent) ctx.res.once('finish', sent);
      ctx.body = bytes;
      ctx.type = 'application/json';
    } else if (result.body !== undefined) {
      ctx.body = result.body;
      if (result.contentType) ctx.type = result.contentType;
    }
  };
}

/**
 * The methods of each path without parameters (`/seller/listings/items`), as `Allow` lists them.
 * Such a path is a resource of its own: a method it lacks is 405 there, even where a templated
 * sibling (`/seller/listings/{id}`) would match the same URL with that method (OpenAPI: concrete
 * paths are matched before templated ones).
 */
function staticPathMethods(routes: AnyRoute[]): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const route of routes) {
    if (route.path.includes('{')) continue;
    const list = methods.get(route.path) ?? [];
    if (route.method === 'get') list.push('HEAD');
    list.push(route.method.toUpperCase());
    methods.set(route.path, list);
  }
  return methods;
}

/**
 * `Allow` on a path without parameters lists that path's own methods, whoever answered: the
 * router's `allowedMethods` (OPTIONS, and methods the API implements nowhere) gathers the methods
 * of every route whose pattern matches the URL, templated siblings included, and would advertise
 * `PUT, DELETE` on `/seller/listings/items` because `/seller/listings/{id}` has them. Runs around
 * the router.
 */
export function staticPathAllow(routes: AnyRoute[]): Middleware {
  const staticPaths = staticPathMethods(routes);
  return async (ctx, next) => {
    await next();
    const allow = staticPaths.get(ctx.path);
    if (allow && ctx.response.get('Allow')) ctx.set('Allow', allow.join(', '));
  };
}

/** Builds the Koa router from the route table; nothing is routed that is not declared there. */
export function buildRouter(routes: AnyRoute[], deps: RouterDeps): Router {
  const router = new Router();
  const staticPaths = staticPathMethods(routes);
  for (const route of routes) {
    const handle = routeMiddleware(route, deps);
    const middleware: Middleware = route.path.includes('{')
      ? async (ctx, next) => {
          const allow = staticPaths.get(ctx.path);
          if (allow && !allow.includes(ctx.method)) {
            // Left unanswered with `Allow`: problemErrors makes it the 405 problem.
            ctx.status = 405;
            ctx.set('Allow', allow.join(', '));
            return;
          }
          return handle(ctx, next);
        }
      : handle;
    router[route.method](route.operationId, toKoaPath(route.path), middleware);
  }
  return router;
}

/** Whether the route answers with a hosted HTML page (the page itself, or the form it posts). */
const servesHtml = (route: AnyRoute): boolean =>
  Object.values(route.responses).some((r) => [r.contentType ?? []].flat().includes('text/html'));

/**
 * What CORS needs to know of a request path (src/http/middleware/cors.ts), matched as the router
 * matches it: the methods its routes have, and whether any of them is a hosted page.
 */
export function corsPaths(routes: AnyRoute[], router: Router): (path: string) => CorsPath | null {
  const byName = new Map(routes.map((route) => [route.operationId, route]));
  const staticPaths = new Set(routes.filter((route) => !route.path.includes('{')).map((route) => route.path));
  return (path) => {
    const matched = staticPaths.has(path)
      ? routes.filter((route) => route.path === path)
      : router
          .match(path, 'GET')
          .path.map((layer) => byName.get(layer.name ?? ''))
          .filter((route): route is AnyRoute => route !== undefined);
    if (matched.length === 0) return null;
    const methods = new Set<string>();
    for (const route of matched) {
      if (route.method === 'get') methods.add('HEAD');
      methods.add(route.method.toUpperCase());
    }
    return { methods: [...methods], page: matched.some(servesHtml) };
  };
}

import type { Context, Middleware } from 'koa';
import type { CorsConfig } from '../../config';

/**
 * What CORS needs to know of the path a request names: the methods it has (preflights list them)
 * and whether it is a hosted HTML page or the form that page posts, which stay closed to
 * cross-origin reads. Null: no route has the path.
 */
export interface CorsPath {
  methods: string[];
  page: boolean;
}

/**
 * Request headers a browser may send beyond the CORS-safelisted ones: the credential, JSON and
 * form bodies, and the two headers the API reads (docs/conventions.md).
 */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];

/**
 * Response headers a script may read beyond the safelisted ones (Cache-Control, Content-Type…):
 * every other header the API sets for a client to act on.
 */
export const CORS_EXPOSED_HEADERS = [
  'Location',
  'Retry-After',
  'Idempotent-Replayed',
  'X-Request-Id',
  'WWW-Authenticate',
  'Content-Disposition',
  'Address-Lookup-Coverage',
];

/**
 * A preflight for a path no route has lists every method the API uses: the request then reaches
 * the API and its 404 problem is readable, instead of failing as an opaque CORS error.
 */
const ANY_API_METHOD = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 7200;

/** `http://localhost:5173`, `http://127.0.0.1:8080`, `http://[::1]:3001`: the development default. */
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/**
 * CORS for the API (docs/conventions.md, "CORS"): an allow-listed `Origin` is echoed in
 * `Access-Control-Allow-Origin` on every answer (errors included, so a script can read the
 * problem), and a preflight is answered here, 204, before authentication and routing.
 *
 * Never `Access-Control-Allow-Credentials`: the API authenticates by the `Authorization` header
 * and sets no cookies, so a cross-origin script only ever acts with a token it holds itself.
 * Hosted pages (and the forms they post) get no CORS at all: they are for the browser to show,
 * not for another origin's script to read. A disallowed origin gets no CORS headers, and the
 * request is otherwise answered as without CORS; the browser then withholds the answer. So is an
 * OPTIONS that is no preflight (no `Access-Control-Request-Method`): the router's `Allow` answer.
 */
export function cors(config: CorsConfig, pathOf: (path: string) => CorsPath | null): Middleware {
  const allowed = new Set(config.allowedOrigins);
  const isAllowed = (origin: string) => allowed.has(origin) || (config.allowLoopback && LOOPBACK_ORIGIN.test(origin));
  if (allowed.size === 0 && !config.allowLoopback) return (_ctx, next) => next();

  const preflight = (ctx: Context, origin: string, methods: string[]) => {
    ctx.status = 204;
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Methods', methods.join(', '));
    ctx.set('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS.join(', '));
    ctx.set('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
    ctx.vary('Origin');
  };

  return async (ctx, next) => {
    const route = pathOf(ctx.path);
    if (route?.page) return next();
    // The answer depends on Origin wherever CORS may apply: a shared cache must not hand an
    // answer without Allow-Origin to an allowed origin (Discover's answers are publicly cacheable).
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    if (!origin || !isAllowed(origin)) return next();
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method'))
      return preflight(ctx, origin, route?.methods ?? ANY_API_METHOD);
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(', '));
    return next();
  };
}

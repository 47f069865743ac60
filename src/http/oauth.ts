import type { Context, Middleware } from 'koa';
import type { ClientCredentials } from '../services/auth/auth-service';
import { DomainError } from '../services/errors';

/** RFC 6749 §5.1: token responses (and introspection answers) must not be cached. */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** The body of an RFC 6749 §5.2 error. */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
}

/** Client credentials as the body carries them (`client_secret_post`, or a public client's `client_id`). */
export interface ClientFields {
  client_id?: string;
  client_secret?: string;
}

/**
 * Client credentials (RFC 6749 §2.3.1): HTTP Basic (`client_secret_basic`) or the body
 * (`client_secret_post`). Basic values are form-urlencoded before base64.
 */
export function clientCredentials(authorization: string, body: ClientFields): ClientCredentials {
  const basic = /^Basic\s+(\S+)$/i.exec(authorization);
  if (!basic) return { clientId: body.client_id, clientSecret: body.client_secret };
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [id, secret] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return { clientId: formDecode(id), clientSecret: formDecode(secret) || undefined };
}

/** A malformed escape is kept as is: it then simply fails client authentication. */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  message?: string;
}

/** A validation failure naming `grant_type` with a value present is an unknown grant, not a malformed request. */
function validationError(err: DomainError, body: unknown): OAuthErrorBody {
  const fields = (err.extensions.errors as Array<{ field: string; message: string }> | undefined) ?? [];
  const grantType = (body as { grant_type?: unknown } | undefined)?.grant_type;
  const unsupportedGrant = typeof grantType === 'string' && fields.some((f) => f.field === 'grant_type');
  return {
    error: unsupportedGrant ? 'unsupported_grant_type' : 'invalid_request',
    error_description: fields.map((f) => `${f.field}: ${f.message}`).join('; ') || err.message,
  };
}

/** Status and body of an OAuth error for one of our errors; null for faults (left to problem+json). */
function toOAuthError(ctx: Context, err: unknown): { status: number; body: OAuthErrorBody } | null {
  if (err instanceof DomainError) {
    if (typeof err.extensions.error === 'string') {
      const status = err.kind === 'unauthenticated' ? 401 : 400;
      return { status, body: { error: err.extensions.error, error_description: String(err.extensions.error_description ?? err.message) } };
    }
    if (err.code === 'validation-failed') return { status: 400, body: validationError(err, ctx.request.body) };
    // The sign-in throttle keeps its status and Retry-After; RFC 6749 has no code of its own for it.
    if (err.kind === 'rate-limited') return { status: 429, body: { error: 'invalid_request', error_description: err.message } };
    if (err.kind === 'unavailable') return { status: 503, body: { error: 'temporarily_unavailable', error_description: err.message } };
    return { status: 400, body: { error: 'invalid_request', error_description: err.message } };
  }
  // The body parser's refusals (malformed, too large, wrong encoding) are malformed requests too.
  const e = (err ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (status === 400 || status === 413 || status === 415) {
    return {
      status: status === 413 ? 413 : 400,
      body: { error: 'invalid_request', error_description: 'The request body could not be read.' },
    };
  }
  return null;
}

/**
 * The OAuth endpoints (token, revocation, introspection) answer errors as RFC 6749 §5.2
 * `application/json {error, error_description}` — what OAuth client libraries parse — instead
 * of problem+json. It sits before the body parser, so its failures are covered as well.
 * A client authentication failure names the `Basic` scheme (RFC 6749 §5.2, `invalid_client`).
 */
export function oauthErrorBodies(paths: ReadonlySet<string>): Middleware {
  return async (ctx, next) => {
    if (!paths.has(ctx.path)) return next();
    try {
      await next();
    } catch (err) {
      const answer = toOAuthError(ctx, err);
      if (!answer) throw err;
      ctx.status = answer.status;
      if (answer.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="marketplace"');
      if (err instanceof DomainError && typeof err.extensions.retryAfter === 'number')
        ctx.set('Retry-After', String(err.extensions.retryAfter));
      for (const [name, value] of Object.entries(NO_STORE)) ctx.set(name, value);
      ctx.type = 'application/json';
      ctx.body = answer.body;
    }
  };
}

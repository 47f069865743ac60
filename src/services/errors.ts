/**
 * Typed domain errors. Services throw these; the HTTP error middleware is the one place that
 * turns them into problem+json responses (the kind decides the status, the code becomes the
 * problem `type`). No Koa types here. Codes come from the problem type catalogue
 * (src/domain/problem-types.ts), each helper only those answered with its status.
 */
import type { CodeWithStatus, ProblemCode } from '../domain/problem-types';

export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'unprocessable'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'rate-limited'
  | 'unavailable';

export interface FieldError {
  /** Where the field lives: `body`, `query`, `params` or `headers`. */
  in: string;
  /** Dotted path of the field, e.g. `items.3.quantity`. */
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Stable machine-readable code, e.g. `pat-limit-reached`. */
    readonly code: ProblemCode,
    message: string,
    /** Problem extension members, e.g. `{ listingIds }` or `{ errors }`. */
    readonly extensions: Record<string, unknown> = {},
    /** What went wrong underneath: logged with the request id, never part of the response. */
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

/**
 * How many field errors a 400 lists. A body with thousands of bad keys must not buy an answer
 * larger than itself; `errorCount` still says how many there were.
 */
export const MAX_LISTED_ERRORS = 20;

export const invalid = (code: CodeWithStatus<400>, message: string, errors?: FieldError[]) =>
  new DomainError(
    'invalid',
    code,
    message,
    !errors
      ? {}
      : errors.length > MAX_LISTED_ERRORS
        ? { errors: errors.slice(0, MAX_LISTED_ERRORS), errorCount: errors.length }
        : { errors },
  );

export const unauthenticated = (message = 'Missing or invalid credentials.') =>
  new DomainError('unauthenticated', 'unauthenticated', message);

export const forbidden = (code: CodeWithStatus<403>, message: string) => new DomainError('forbidden', code, message);

export const notFound = (what: string) => new DomainError('not-found', 'not-found', `${what} was not found.`);

export const conflict = (code: CodeWithStatus<409>, message: string) => new DomainError('conflict', code, message);

/**
 * A dependency (Temporal, a provider) is temporarily unreachable: 503. The client sees only
 * `message` (and any `extensions`, which must hold no internal text); `cause` is what the error
 * middleware logs with the request id.
 */
export const unavailable = (
  message: string,
  options: { code?: CodeWithStatus<503>; cause?: unknown; extensions?: Record<string, string> } = {},
) => new DomainError('unavailable', options.code ?? 'temporarily-unavailable', message, options.extensions ?? {}, { cause: options.cause });

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03']);

/**
 * Connection-level failures: the socket was refused, reset or timed out, or PostgreSQL answered
 * that it cannot serve now (SQLSTATE class 08, connection exception; 57P01–57P03: shut down,
 * crashed, starting up), or node-postgres lost the connection mid-query. A dependency being
 * restarted looks like this; the request may succeed when repeated. Checked on the error, its
 * TypeORM `driverError` and its `cause` chain.
 */
export function isUnreachableDependency(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e !== null && typeof e === 'object' && depth < 5; depth += 1) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && /^Connection terminated( unexpectedly)?$/.test(message)) return true;
    e = (e as { driverError?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

import type Joi from 'joi';
import type { Context } from 'koa';
import type { Principal } from '../services/auth/authenticator';

/**
 * Who may call a route:
 * - `public`: no credential;
 * - `bearer`: a first-party OAuth access token only (account and credential management);
 * - `user`: any access token (first-party or a linked third-party application's) or a personal
 *   access token (`ApiKey`);
 * - `seller`: like `user`, and the caller must have an active seller account;
 * - `operator`: a first-party OAuth access token of a user holding the operator role.
 */
export type AuthLevel = 'public' | 'bearer' | 'user' | 'seller' | 'operator';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** Joi schema of the body; validated outside production so the OpenAPI document stays true. */
  schema?: Joi.Schema;
  /** Defaults to application/json when a schema is given; several when the body's type varies. */
  contentType?: string | string[];
}

export interface RequestSpec {
  params?: Joi.ObjectSchema;
  query?: Joi.ObjectSchema;
  body?: Joi.Schema;
  /** Body encodings accepted; JSON unless stated. */
  bodyTypes?: Array<'json' | 'form'>;
  /**
   * A body of raw bytes (an image, a CSV file) that the handler reads from the stream itself
   * (`readRawBody`), instead of a parsed `body`. Its media types are enforced (415 otherwise).
   */
  rawBody?: { mediaTypes: string[]; description: string };
}

/**
 * A JSON body already serialized by `toJsonBytes` (kept so by a cache: a hit then costs
 * neither `JSON.stringify` nor encoding). The router sends the bytes as `application/json` unchanged,
 * and parses them back only when it validates responses against their schemas.
 */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

export interface HandlerResult {
  status: number;
  /** An object or array (sent as JSON), `JsonBytes`, or a document with `contentType`. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Content type for non-JSON bodies (documents, HTML). */
  contentType?: string;
}

export interface HandlerInput<P, Q, B, A extends AuthLevel> {
  params: P;
  query: Q;
  body: B;
  principal: A extends 'public' ? null : Principal;
  ctx: Context;
}

export interface RouteSpec<P = unknown, Q = unknown, B = unknown, A extends AuthLevel = AuthLevel> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/seller/webhooks/{webhookId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: A;
  /**
   * How errors are answered: problem+json (the default), or RFC 6749 §5.2
   * `application/json {error, error_description}` for the OAuth endpoints (src/http/oauth.ts).
   */
  errors?: 'problem' | 'oauth';
  /**
   * Whether the route honours `Idempotency-Key` (docs/conventions.md). Defaults to true for every
   * authenticated POST, PUT and PATCH with a parsed body or none; false opts a route out.
   */
  idempotent?: boolean;
  request?: RequestSpec;
  responses: Record<number, ResponseSpec>;
  handler: (input: HandlerInput<P, Q, B, A>) => Promise<HandlerResult>;
}

/** Whether a request to the route may carry an `Idempotency-Key` (see `RouteSpec.idempotent`). */
export const takesIdempotencyKey = (route: AnyRoute): boolean =>
  route.auth !== 'public' && !route.request?.rawBody && ['post', 'put', 'patch'].includes(route.method) && route.idempotent !== false;

/** Any route, with its handler's input types erased, for the router and the OpenAPI builder. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any, AuthLevel>;

/**
 * Declares a route once: method, path, auth, schemas and handler. The router, request
 * validation and the OpenAPI document are all derived from these declarations.
 * The type parameters name the shapes Joi hands the handler after validation.
 */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined, A extends AuthLevel = AuthLevel>(
  spec: RouteSpec<P, Q, B, A>,
): AnyRoute {
  return spec as AnyRoute;
}

import type Joi from 'joi';
import type { Context } from 'koa';
import type { Principal } from '../services/auth/authenticator';
import type { BodyOf, OperationId, ParamsOf, QueryOf, ResultOf } from './contract';

export { JsonBytes } from './json-bytes-body';

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

/** What a handler answers, as the router sees it (each route's handler is typed by `ResultOf`). */
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

/** A route's declaration, its handler's input and answer types left open. */
interface RouteDeclaration<O extends string, A extends AuthLevel, Input, Result> {
  /** Names the route in the OpenAPI document, and so the types its handler works with (src/http/contract.ts). */
  operationId: O;
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
  handler: (input: Input) => Promise<Result>;
}

/**
 * A route whose handler takes the params, query and body its Joi schemas validate and answers
 * the bodies its responses document, all read from the generated contract by `operationId`.
 */
export type RouteSpec<O extends OperationId, A extends AuthLevel> = RouteDeclaration<
  O,
  A,
  HandlerInput<ParamsOf<O>, QueryOf<O>, BodyOf<O>, A>,
  ResultOf<O>
>;

/** Whether a request to the route may carry an `Idempotency-Key` (see `RouteSpec.idempotent`). */
export const takesIdempotencyKey = (route: AnyRoute): boolean =>
  route.auth !== 'public' && !route.request?.rawBody && ['post', 'put', 'patch'].includes(route.method) && route.idempotent !== false;

/** Any route, with its handler's types erased, for the router and the OpenAPI builder. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDeclaration<string, AuthLevel, HandlerInput<any, any, any, AuthLevel>, HandlerResult>;

/**
 * Declares a route once: method, path, auth, schemas and handler. The router, request
 * validation and the OpenAPI document are all derived from these declarations, and the
 * handler's types from that document (`RouteSpec`). The type arguments name the operation and
 * the auth level, as the declaration does (a mismatch does not compile), and nothing else: a
 * route writes no types of its own. (Inferring them from the declaration would widen the
 * handler's literal `status` to number, losing which body goes with which status.)
 */
export function defineRoute<O extends OperationId, A extends AuthLevel>(spec: RouteSpec<O, A>): AnyRoute {
  return spec as unknown as AnyRoute;
}

/**
 * A route whose handler types are still written by hand (P, Q, B): kept only while the route
 * files move to `defineRoute`, one group at a time.
 */
export function defineLegacyRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined, A extends AuthLevel = AuthLevel>(
  spec: RouteDeclaration<string, A, HandlerInput<P, Q, B, A>, HandlerResult>,
): AnyRoute {
  return spec as unknown as AnyRoute;
}

import type Joi from 'joi';
import { takesIdempotencyKey, type AnyRoute, type AuthLevel, type ResponseSpec } from './route';
import { PROBLEM_CONTENT_TYPE } from './problem';
import { SchemaComponents } from './openapi-schema';
import { webhooksSection } from './openapi-webhooks';
import { oauthError, problemSchema, validationProblem } from './schemas';
import { TAG_DESCRIPTIONS } from './tags';

type JsonSchema = Record<string, unknown>;

const SECURITY: Record<AuthLevel, Array<Record<string, string[]>>> = {
  public: [],
  bearer: [{ Bearer: [] }],
  user: [{ Bearer: [] }, { ApiKey: [] }, { ThirdPartyApp: [] }],
  seller: [{ Bearer: [] }, { ApiKey: [] }, { ThirdPartyApp: [] }],
  operator: [{ Operator: [] }],
};

/** Builds one document: the components every operation's schemas are collected into. */
class DocumentBuilder {
  readonly components = new SchemaComponents();

  schema(joi: Joi.Schema): JsonSchema {
    return this.components.convert(joi);
  }

  /** An error answer: RFC 9457 problem+json, or RFC 6749 JSON on the OAuth endpoints. */
  errorResponse(route: AnyRoute, status: number | 'default', description: string, schema?: Joi.Schema): JsonSchema {
    // Faults (the `default` answer) are problem+json on every route, the OAuth endpoints included.
    if (route.errors === 'oauth' && status !== 'default') {
      return { description, content: { 'application/json': { schema: this.schema(schema ?? oauthError) } } };
    }
    const fallback = status === 400 && route.request ? validationProblem : problemSchema;
    return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: this.schema(schema ?? fallback) } } };
  }

  /** Error responses every route of an auth level can give, besides those it declares. */
  commonErrors(route: AnyRoute): Record<string, unknown> {
    const errors: Record<string, unknown> = {};
    if (route.request?.rawBody) errors['415'] = this.errorResponse(route, 415, 'The body is not in one of the accepted media types.');
    if (route.request) errors['400'] = this.errorResponse(route, 400, 'The request is invalid; `errors` lists each failing field.');
    // The OAuth endpoints answer a body too large to read in their own format too (src/http/oauth.ts).
    if (route.errors === 'oauth' && route.request) errors['413'] = this.errorResponse(route, 413, 'The request body is too large to read.');
    if (route.auth !== 'public') errors['401'] = this.errorResponse(route, 401, 'Missing or invalid credentials.');
    if (route.auth === 'seller') errors['403'] = this.errorResponse(route, 403, 'The caller has no active seller account.');
    if (route.auth === 'bearer')
      errors['403'] = this.errorResponse(route, 403, 'A personal access token was used where an access token is required.');
    if (route.auth === 'operator') {
      errors['403'] = this.errorResponse(route, 403, 'The caller is not an operator, or used a token other than their own access token.');
    }
    if (takesIdempotencyKey(route)) {
      errors['409'] = this.errorResponse(
        route,
        409,
        'Also: a request with the same `Idempotency-Key` is still in flight (`idempotency-key-in-use`), or was applied ' +
          'but its answer was lost when the server stopped (`idempotency-key-answer-lost`).',
      );
      errors['422'] = this.errorResponse(route, 422, 'The `Idempotency-Key` was used with a different request (`idempotency-key-reused`).');
    }
    errors.default = this.errorResponse(route, 'default', 'Any other error, as RFC 9457 problem details.');
    return errors;
  }

  response(route: AnyRoute, status: number, spec: ResponseSpec): JsonSchema {
    // An error without a page or document of its own (HTML pages have a content type) is a problem.
    if (status >= 400 && (!spec.contentType || spec.contentType === PROBLEM_CONTENT_TYPE)) {
      return this.errorResponse(route, status, spec.description, spec.schema);
    }
    const types = [spec.contentType ?? 'application/json'].flat();
    if (spec.schema) {
      const schema = this.schema(spec.schema);
      return { description: spec.description, content: Object.fromEntries(types.map((t) => [t, { schema }])) };
    }
    if (spec.contentType) {
      return {
        description: spec.description,
        content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
      };
    }
    return { description: spec.description };
  }
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request within 24 h answers the first answer again (same status, ' +
    '`Idempotent-Replayed: true`) instead of acting twice. Keys are per user; see docs/conventions.md.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$' },
};

/**
 * Response headers clients read (docs/conventions.md), published once under `components.headers`
 * and referenced from every response that can carry them. None is marked required: a few answers
 * are made before routing (docs/errors.md) and carry none of them.
 */
const RESPONSE_HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description: "The request's id: the caller's `X-Request-Id` when it is sane, else a new one. Quote it when reporting a problem.",
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this is the stored answer to an earlier request with the same `Idempotency-Key`, not a new action.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again, when the service knows (rate limits, a throttled sign-in, some outages).',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The credentials the route takes (RFC 6750); `error="invalid_token"` when a token was sent but is not valid.',
    schema: { type: 'string' },
  },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers a response of `status` to `route` can carry. */
function responseHeaders(route: AnyRoute, status: string): Record<string, unknown> {
  const code = Number(status);
  return {
    'X-Request-Id': headerRef('X-Request-Id'),
    ...(code >= 200 && code < 300 && takesIdempotencyKey(route) ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
    ...(code === 429 || code === 503 ? { 'Retry-After': headerRef('Retry-After') } : {}),
    ...(code === 401 ? { 'WWW-Authenticate': headerRef('WWW-Authenticate') } : {}),
  };
}

function parameters(doc: DocumentBuilder, schema: Joi.ObjectSchema | undefined, location: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const described = doc.schema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(described.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s as { description?: string };
    return {
      name,
      in: location,
      required: location === 'path' || (described.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** Request examples declared with Joi's `.example()`, as named OpenAPI examples (Swagger UI pre-fills the first). */
function examples(joi: Joi.Schema): Record<string, { value: unknown }> | undefined {
  const declared = (joi.describe() as { examples?: unknown[] }).examples;
  if (!declared?.length) return undefined;
  return Object.fromEntries(declared.map((value, i) => [i === 0 ? 'default' : `example${i + 1}`, { value }]));
}

function operation(doc: DocumentBuilder, route: AnyRoute): Record<string, unknown> {
  const req = route.request ?? {};
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) responses[status] = doc.response(route, Number(status), spec);
  for (const [status, response] of Object.entries(doc.commonErrors(route))) {
    const declared = responses[status] as { content?: Record<string, unknown> } | undefined;
    const common = (response as { content?: Record<string, unknown> }).content ?? {};
    // A status a route declares with a page or document (e.g. a 400 HTML page) can still come
    // from the router as a problem (validation, credentials, idempotency): both are listed.
    if (declared?.content && !declared.content[PROBLEM_CONTENT_TYPE] && common[PROBLEM_CONTENT_TYPE]) {
      declared.content[PROBLEM_CONTENT_TYPE] = common[PROBLEM_CONTENT_TYPE];
    }
    responses[status] ??= response;
  }
  for (const [status, response] of Object.entries(responses)) {
    const withHeaders = response as { headers?: Record<string, unknown> };
    withHeaders.headers = { ...responseHeaders(route, status), ...withHeaders.headers };
  }
  const body = req.body ? doc.schema(req.body) : undefined;
  const bodyExamples = req.body ? examples(req.body) : undefined;
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY[route.auth],
    parameters: [
      ...parameters(doc, req.params, 'path'),
      ...parameters(doc, req.query, 'query'),
      ...(takesIdempotencyKey(route) ? [IDEMPOTENCY_KEY_PARAMETER] : []),
    ],
    ...(req.rawBody
      ? {
          requestBody: {
            required: true,
            description: req.rawBody.description,
            content: Object.fromEntries(req.rawBody.mediaTypes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
          },
        }
      : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              (req.bodyTypes ?? ['json']).map((t) => [
                t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
                { schema: body, ...(bodyExamples ? { examples: bodyExamples } : {}) },
              ]),
            ),
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, derived entirely from the route table. */
export function buildOpenApi(routes: AnyRoute[], serverUrl: string): Record<string, unknown> {
  const doc = new DocumentBuilder();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method] = operation(doc, route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketplace Trading Service',
      version: '0.0.0',
      description:
        'REST interface of a marketplace for collectible cards and sealed products. Errors are RFC 9457 ' +
        'problem details (application/problem+json), except on the OAuth endpoints, which answer RFC 6749 ' +
        '`{error, error_description}`. Money is integer pence.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({
      name,
      ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
    })),
    paths,
    webhooks: webhooksSection(doc.components, 'Webhooks'),
    components: {
      headers: RESPONSE_HEADERS,
      securitySchemes: {
        Bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from POST /oauth/token or POST /auth/register.',
        },
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'A personal access token, sent as `Authorization: ApiKey <token>`.',
        },
        Operator: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'The access token (POST /oauth/token) of a user holding the operator role, granted with `npm run operators -- grant <user>`. ' +
            "Personal access tokens and third-party applications' tokens are refused on operator routes.",
        },
        ThirdPartyApp: {
          type: 'oauth2',
          description:
            'An operator-registered application acting for a user who linked it (authorization code with PKCE S256). ' +
            "No scopes: the token acts as the user, except on account-security routes, which take only the user's own token.",
          flows: {
            authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: {} },
          },
        },
      },
      schemas: doc.components.schemas,
    },
  };
}

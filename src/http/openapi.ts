import type Joi from 'joi';
import parse from 'joi-to-json';
import { takesIdempotencyKey, type AnyRoute, type AuthLevel } from './route';
import { PROBLEM_CONTENT_TYPE } from './problem';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: Joi.Schema): JsonSchema => withoutReferences(parse(schema, 'open-api-3.1')) as JsonSchema;

/**
 * joi-to-json writes a limit taken from another field (`Joi.ref('priceMin')`) as
 * `minimum: {ref: …}`, which is not JSON Schema; such a limit cannot be stated statically, so it
 * is dropped from the document (the API still enforces it).
 */
const LIMITS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems']);

function withoutReferences(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutReferences);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (LIMITS.has(k) && typeof v === 'object') continue;
    out[k] = withoutReferences(v);
  }
  return out;
}

const SECURITY: Record<AuthLevel, Array<Record<string, string[]>>> = {
  public: [],
  bearer: [{ Bearer: [] }],
  user: [{ Bearer: [] }, { ApiKey: [] }, { ThirdPartyApp: [] }],
  seller: [{ Bearer: [] }, { ApiKey: [] }, { ThirdPartyApp: [] }],
  operator: [{ Operator: [] }],
};

const problemRef = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** Error responses every route of an auth level can give, besides those it declares. */
function commonErrors(route: AnyRoute): Record<string, unknown> {
  const errors: Record<string, unknown> = {};
  if (route.request?.rawBody) errors['415'] = problemRef('The body is not in one of the accepted media types.');
  if (route.request) errors['400'] = problemRef('The request is invalid; `errors` lists each failing field.');
  if (route.auth !== 'public') errors['401'] = problemRef('Missing or invalid credentials.');
  if (route.auth === 'seller') errors['403'] = problemRef('The caller has no active seller account.');
  if (route.auth === 'bearer') errors['403'] = problemRef('A personal access token was used where an access token is required.');
  if (route.auth === 'operator')
    errors['403'] = problemRef('The caller is not an operator, or used a token other than their own access token.');
  if (takesIdempotencyKey(route)) {
    errors['409'] = problemRef('Also: a request with the same `Idempotency-Key` is still in flight (`idempotency-key-in-use`).');
    errors['422'] = problemRef('The `Idempotency-Key` was used with a different request (`idempotency-key-reused`).');
  }
  errors.default = problemRef('Any other error, as RFC 9457 problem details.');
  return errors;
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

function parameters(schema: Joi.ObjectSchema | undefined, location: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const described = toSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
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

function operation(route: AnyRoute): Record<string, unknown> {
  const req = route.request ?? {};
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const types = [spec.contentType ?? 'application/json'].flat();
    responses[status] = {
      description: spec.description,
      ...(spec.schema
        ? { content: Object.fromEntries(types.map((t) => [t, { schema: toSchema(spec.schema!) }])) }
        : spec.contentType
          ? { content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) }
          : {}),
    };
  }
  for (const [status, response] of Object.entries(commonErrors(route))) {
    const declared = responses[status] as { content?: Record<string, unknown> } | undefined;
    // A status a route declares with a page or document (e.g. a 400 HTML page) can still come
    // from the router as a problem (validation, credentials, idempotency): both are listed.
    if (declared?.content && !declared.content[PROBLEM_CONTENT_TYPE]) {
      declared.content[PROBLEM_CONTENT_TYPE] = { schema: { $ref: '#/components/schemas/Problem' } };
    }
    responses[status] ??= response;
  }
  const body = req.body ? toSchema(req.body) : undefined;
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY[route.auth],
    parameters: [
      ...parameters(req.params, 'path'),
      ...parameters(req.query, 'query'),
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
                { schema: body },
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
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketplace Trading Service',
      version: '0.0.0',
      description:
        'REST interface of a marketplace for collectible cards and sealed products. Errors are RFC 9457 ' +
        'problem details (application/problem+json). Money is integer pence.',
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
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
      schemas: {
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details; routes add extension members such as `errors` or `listingIds`.',
          required: ['type', 'title', 'status'],
          properties: {
            type: { type: 'string', format: 'uri-reference' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            instance: { type: 'string' },
            requestId: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { in: { type: 'string' }, field: { type: 'string' }, message: { type: 'string' } },
              },
              maxItems: 20,
            },
            errorCount: { type: 'integer', description: 'How many fields failed, when more than the 20 listed in `errors`.' },
          },
        },
      },
    },
  };
}

import Joi from '../../joi';
import type { TokenTypeHint } from '../../services/auth/oauth-tokens';
import { clientCredentials, NO_STORE } from '../oauth';
import { defineRoute } from '../route';
import { oauthError } from '../schemas';
import type { OAuthTokens } from '../../services/auth/oauth-tokens';

const hint = (value: string | undefined): TokenTypeHint | undefined =>
  value === 'access_token' || value === 'refresh_token' ? value : undefined;

/** RFC 7009 §2.1 / RFC 7662 §2.1 request: the token, an optional hint, and the client's credentials. */
const tokenRequest = Joi.object({
  token: Joi.string().max(2048).required(),
  // RFC 7009 §2.1: an unknown hint is ignored, not refused.
  token_type_hint: Joi.string().max(64),
  client_id: Joi.string().max(128),
  client_secret: Joi.string().max(256),
})
  .example({
    token: 'mts_rt_Xq3vN8bT2kLm9pRw4sYz7cHd1fGj6aUe5oIx0nBtKyQ',
    token_type_hint: 'refresh_token',
    client_id: 'mts_app_0190a1b2c3d47e5f8a9b0c1d2e3f4a5b',
    client_secret: 'mts_cs_P7wK2mQ9xR4tV8yB3nL6cF1hJ5dS0gZaEoUiTrWqXe',
  })
  .meta({ component: 'TokenReference' });

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/** The services these routes use (their feature module's, src/modules). */
export interface OAuthServerRouteServices {
  oauthTokens: OAuthTokens;
}

/**
 * The authorization server's discovery document (RFC 8414), revocation (RFC 7009) and
 * introspection (RFC 7662). Registered applications use the last two with the credentials they
 * use at the token endpoint.
 */
export const oauthServerRoutes = (s: OAuthServerRouteServices) => [
  defineRoute<'authorizationServerMetadata', 'public'>({
    operationId: 'authorizationServerMetadata',
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    tag: 'Auth',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    auth: 'public',
    responses: {
      200: {
        description: "Endpoints and capabilities; `issuer` is the service's public base URL and the `iss` of its tokens.",
        schema: Joi.object({
          issuer: Joi.string().required(),
          authorization_endpoint: Joi.string().required(),
          token_endpoint: Joi.string().required(),
          revocation_endpoint: Joi.string().required(),
          introspection_endpoint: Joi.string().required(),
          response_types_supported: Joi.array().items(Joi.string()).required(),
          response_modes_supported: Joi.array().items(Joi.string()).required(),
          grant_types_supported: Joi.array().items(Joi.string()).required(),
          code_challenge_methods_supported: Joi.array().items(Joi.string()).required(),
          token_endpoint_auth_methods_supported: Joi.array().items(Joi.string()).required(),
          revocation_endpoint_auth_methods_supported: Joi.array().items(Joi.string()).required(),
          introspection_endpoint_auth_methods_supported: Joi.array().items(Joi.string()).required(),
          authorization_response_iss_parameter_supported: Joi.boolean().required(),
          scopes_supported: Joi.array().items(Joi.string()).required(),
          service_documentation: Joi.string().required(),
        }).meta({ component: 'AuthorizationServerMetadata' }),
      },
    },
    handler: async () => {
      const issuer = s.oauthTokens.issuer;
      return {
        status: 200,
        body: {
          issuer,
          authorization_endpoint: `${issuer}/oauth/authorize`,
          token_endpoint: `${issuer}/oauth/token`,
          revocation_endpoint: `${issuer}/oauth/revoke`,
          introspection_endpoint: `${issuer}/oauth/introspect`,
          response_types_supported: ['code'],
          response_modes_supported: ['query'],
          grant_types_supported: ['authorization_code', 'refresh_token', 'password'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: AUTH_METHODS,
          revocation_endpoint_auth_methods_supported: AUTH_METHODS,
          // Public applications cannot introspect (their client_id is no secret).
          introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          authorization_response_iss_parameter_supported: true,
          // No scopes: a linked application acts as the user (docs/auth.md).
          scopes_supported: [],
          service_documentation: `${issuer}/docs`,
        },
        headers: { 'Cache-Control': 'public, max-age=3600' },
      };
    },
  }),

  defineRoute<'revokeToken', 'public'>({
    operationId: 'revokeToken',
    method: 'post',
    path: '/oauth/revoke',
    tag: 'Auth',
    summary: "Revoke an application's access or refresh token (RFC 7009)",
    description:
      "Form-encoded `token` and optional `token_type_hint`, with the application's credentials as at the token endpoint. " +
      'A refresh token is revoked with every token descended from the same link; an access token is refused from the next request on. ' +
      "A token that is unknown, expired or another application's is answered 200 as well, and nothing changes.",
    auth: 'public',
    errors: 'oauth',
    request: { bodyTypes: ['form'], body: tokenRequest },
    responses: {
      200: { description: 'Revoked (or there was nothing to revoke).' },
      400: { description: '`invalid_request`: a missing or malformed parameter.', schema: oauthError },
      401: { description: '`invalid_client`: unknown or disabled application, or wrong client credentials.', schema: oauthError },
    },
    handler: async ({ body, ctx }) => {
      await s.oauthTokens.revoke(body.token, hint(body.token_type_hint), clientCredentials(ctx.get('authorization'), body));
      return { status: 200, headers: NO_STORE };
    },
  }),

  defineRoute<'introspectToken', 'public'>({
    operationId: 'introspectToken',
    method: 'post',
    path: '/oauth/introspect',
    tag: 'Auth',
    summary: "Introspect an application's token (RFC 7662)",
    description:
      'For confidential applications, with their credentials as at the token endpoint. Only tokens issued to the calling application ' +
      'can be active; any other token, and a revoked, spent or expired one, is `{"active": false}`.',
    auth: 'public',
    errors: 'oauth',
    request: { bodyTypes: ['form'], body: tokenRequest },
    responses: {
      200: {
        description: "The token's state; an active token carries its claims.",
        schema: Joi.object({
          active: Joi.boolean().required(),
          client_id: Joi.string(),
          sub: Joi.string(),
          exp: Joi.number().integer(),
          iat: Joi.number().integer(),
          iss: Joi.string(),
          aud: Joi.string(),
          jti: Joi.string(),
          token_type: Joi.string().valid('Bearer'),
        }).meta({ component: 'TokenIntrospection' }),
      },
      400: { description: '`invalid_request`: a missing or malformed parameter.', schema: oauthError },
      401: { description: '`invalid_client`: unknown, disabled or public application, or wrong client credentials.', schema: oauthError },
    },
    handler: async ({ body, ctx }) => {
      const result = await s.oauthTokens.introspect(
        body.token,
        hint(body.token_type_hint),
        clientCredentials(ctx.get('authorization'), body),
      );
      return { status: 200, body: result, headers: NO_STORE };
    },
  }),
];

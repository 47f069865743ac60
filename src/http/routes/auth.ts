import Joi from '../../joi';
import type { StringSchema } from 'joi';
import type { User } from '../../db/entities';
import type { TokenPair } from '../../services/auth/auth-service';
import { defineRoute } from '../route';
import { clientCredentials, NO_STORE } from '../oauth';
import { email, oauthError, password, userView, username } from '../schemas';
import type { AuthService } from '../../services/auth/auth-service';

export const toUserView = (u: User) => ({ id: u.id, email: u.email, username: u.username, createdAt: u.createdAt });

/** Fields that belong to one grant type only. */
const onlyFor = (grant: string, schema: StringSchema) =>
  schema.when('grant_type', { is: grant, then: Joi.required(), otherwise: Joi.forbidden() });

const oauthTokenResponse = (t: TokenPair) => ({
  access_token: t.accessToken,
  token_type: 'Bearer' as const,
  expires_in: t.expiresIn,
  refresh_token: t.refreshToken,
});

/** The services these routes use (their feature module's, src/modules). */
export interface AuthRouteServices {
  auth: AuthService;
}

export const authRoutes = (s: AuthRouteServices) => [
  defineRoute<'register', 'public'>({
    operationId: 'register',
    method: 'post',
    path: '/auth/register',
    tag: 'Auth',
    summary: 'Create an account and sign in',
    auth: 'public',
    request: {
      body: Joi.object({ email: email.required(), username: username.required(), password: password.required() }).example({
        email: 'collector@example.com',
        username: 'collector',
        password: 'correct horse battery',
      }),
    },
    responses: {
      201: {
        description: 'The new user and a first token pair.',
        schema: Joi.object({
          user: userView.required(),
          accessToken: Joi.string().required(),
          refreshToken: Joi.string().required(),
          expiresIn: Joi.number().integer().required(),
        }),
      },
      409: { description: 'The e-mail address or username is taken.' },
    },
    handler: async ({ body }) => {
      const { user, tokens } = await s.auth.register(body);
      return { status: 201, body: { user: toUserView(user), ...tokens }, headers: NO_STORE };
    },
  }),

  defineRoute<'token', 'public'>({
    operationId: 'token',
    method: 'post',
    path: '/oauth/token',
    tag: 'Auth',
    summary: 'OAuth 2.0 token endpoint (password, authorization_code with PKCE, rotating refresh_token)',
    description:
      '`grant_type=password` takes `username` (or the e-mail address) and `password`. ' +
      '`grant_type=authorization_code` (third-party applications) takes `code`, `code_verifier`, `redirect_uri` (required when the authorization request named one), ' +
      'and the client credentials: `client_id` (+ `client_secret` for a confidential application) in the body or as HTTP Basic. ' +
      '`grant_type=refresh_token` spends the refresh token and returns a new pair; presenting a spent ' +
      'refresh token again revokes every token descended from the same sign-in. An application refreshing its tokens authenticates as above. ' +
      'JSON or form-encoded. Errors are RFC 6749 §5.2 `application/json` `{error, error_description}`, not problem details.',
    auth: 'public',
    errors: 'oauth',
    request: {
      bodyTypes: ['json', 'form'],
      body: Joi.object({
        grant_type: Joi.string().valid('password', 'refresh_token', 'authorization_code').required(),
        username: onlyFor('password', Joi.string().max(254)),
        password: onlyFor('password', Joi.string().max(256)),
        refresh_token: onlyFor('refresh_token', Joi.string().max(512)),
        code: onlyFor('authorization_code', Joi.string().max(256)),
        code_verifier: onlyFor('authorization_code', Joi.string().max(128)),
        redirect_uri: Joi.string().max(2048).when('grant_type', { is: 'authorization_code', otherwise: Joi.forbidden() }),
        scope: Joi.string().max(512),
        client_id: Joi.string().max(128),
        client_secret: Joi.string().max(256),
      })
        .meta({ component: 'TokenRequest' })
        .example({ grant_type: 'password', username: 'collector', password: 'correct horse battery' }),
    },
    responses: {
      200: {
        description: 'A new token pair.',
        schema: Joi.object({
          access_token: Joi.string().required(),
          token_type: Joi.string().valid('Bearer').required(),
          expires_in: Joi.number().integer().required(),
          refresh_token: Joi.string().required(),
        }),
      },
      400: {
        description:
          "`invalid_grant`: wrong credentials, or a code or refresh token that is invalid, expired, spent or not this application's; " +
          '`invalid_request`: a missing or malformed parameter; `unsupported_grant_type`.',
        schema: oauthError,
      },
      401: {
        description: '`invalid_client`: unknown or disabled application, or wrong client credentials (`WWW-Authenticate: Basic`).',
        schema: oauthError,
      },
      429: {
        description: 'Too many failed password sign-ins for this account name (`invalid_request`); see `Retry-After`.',
        schema: oauthError,
      },
    },
    handler: async ({ body, ctx }) => {
      const client = clientCredentials(ctx.get('authorization'), body);
      let tokens: TokenPair;
      if (body.grant_type === 'password') tokens = await s.auth.passwordGrant(body.username, body.password);
      else if (body.grant_type === 'refresh_token') tokens = await s.auth.refreshGrant(body.refresh_token, client);
      else
        tokens = await s.auth.authorizationCodeGrant(
          { code: body.code, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier },
          client,
        );
      return { status: 200, body: oauthTokenResponse(tokens), headers: NO_STORE };
    },
  }),
];

import Joi from 'joi';
import type { User } from '../../db/entities';
import type { TokenPair } from '../../services/auth/auth-service';
import { defineRoute } from '../route';
import { email, password, userView, username } from '../schemas';
import type { Services } from '../services';

export const toUserView = (u: User) => ({ id: u.id, email: u.email, username: u.username, createdAt: u.createdAt });

interface RegisterBody {
  email: string;
  username: string;
  password: string;
}

type TokenBody =
  | { grant_type: 'password'; username: string; password: string; scope?: string }
  | { grant_type: 'refresh_token'; refresh_token: string; scope?: string };

const oauthTokenResponse = (t: TokenPair) => ({
  access_token: t.accessToken,
  token_type: 'Bearer',
  expires_in: t.expiresIn,
  refresh_token: t.refreshToken,
});

// RFC 6749 §5.1: token responses must not be cached.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const authRoutes = (s: Services) => [
  defineRoute<Record<string, never>, Record<string, never>, RegisterBody, 'public'>({
    operationId: 'register',
    method: 'post',
    path: '/auth/register',
    tag: 'Auth',
    summary: 'Create an account and sign in',
    auth: 'public',
    request: {
      body: Joi.object({ email: email.required(), username: username.required(), password: password.required() }),
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

  defineRoute<Record<string, never>, Record<string, never>, TokenBody, 'public'>({
    operationId: 'token',
    method: 'post',
    path: '/oauth/token',
    tag: 'Auth',
    summary: 'OAuth 2.0 token endpoint (password and rotating refresh_token grants)',
    description:
      '`grant_type=password` takes `username` (or the e-mail address) and `password`. ' +
      '`grant_type=refresh_token` spends the refresh token and returns a new pair; presenting a spent ' +
      'refresh token again revokes every token descended from the same sign-in. JSON or form-encoded.',
    auth: 'public',
    request: {
      bodyTypes: ['json', 'form'],
      body: Joi.object({
        grant_type: Joi.string().valid('password', 'refresh_token').required(),
        username: Joi.string().max(254).when('grant_type', { is: 'password', then: Joi.required(), otherwise: Joi.forbidden() }),
        password: Joi.string().max(256).when('grant_type', { is: 'password', then: Joi.required(), otherwise: Joi.forbidden() }),
        refresh_token: Joi.string()
          .max(512)
          .when('grant_type', { is: 'refresh_token', then: Joi.required(), otherwise: Joi.forbidden() }),
        scope: Joi.string().max(512),
        client_id: Joi.string().max(128),
      }),
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
    },
    handler: async ({ body }) => {
      const tokens =
        body.grant_type === 'password'
          ? await s.auth.passwordGrant(body.username, body.password)
          : await s.auth.refreshGrant(body.refresh_token);
      return { status: 200, body: oauthTokenResponse(tokens), headers: NO_STORE };
    },
  }),
];

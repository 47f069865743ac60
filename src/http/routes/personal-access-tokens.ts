import Joi from '../../joi';
import { EXPIRY_RULE, expiresTooSoon, MAX_ACTIVE_TOKENS } from '../../services/personal-access-tokens';
import { defineRoute } from '../route';
import { timestamp } from '../schemas';
import type { PersonalAccessTokens } from '../../services/personal-access-tokens';

const name = Joi.string().min(1).max(256);
// Checked here too so one response lists it beside any other bad field.
const expires = timestamp
  .custom((value: Date, helpers) => (expiresTooSoon(value) ? helpers.message({ custom: EXPIRY_RULE }) : value))
  .description('Optional; at least 24 hours ahead.');

const tokenView = Joi.object({
  name: Joi.string().required(),
  createdAt: timestamp.required(),
  expires: timestamp.allow(null).required(),
  lastUsed: timestamp.allow(null).required(),
}).meta({ component: 'PersonalAccessToken' });

/** The services these routes use (their feature module's, src/modules). */
export interface PersonalAccessTokenRouteServices {
  pats: PersonalAccessTokens;
}

export const personalAccessTokenRoutes = (s: PersonalAccessTokenRouteServices) => [
  defineRoute<'listPersonalAccessTokens', 'bearer'>({
    operationId: 'listPersonalAccessTokens',
    method: 'get',
    path: '/user/personal-access-tokens',
    tag: 'Personal access tokens',
    summary: "List the caller's personal access tokens (never the tokens themselves)",
    auth: 'bearer',
    responses: { 200: { description: 'Tokens, oldest first.', schema: Joi.array().items(tokenView) } },
    handler: async ({ principal }) => ({ status: 200, body: await s.pats.list(principal.userId) }),
  }),

  defineRoute<'createPersonalAccessToken', 'bearer'>({
    operationId: 'createPersonalAccessToken',
    method: 'post',
    path: '/user/personal-access-tokens',
    tag: 'Personal access tokens',
    summary: 'Create a personal access token; the token is shown only in this response',
    description: `At most ${MAX_ACTIVE_TOKENS} active tokens per user; names are unique per user; \`expires\`, when given, must be at least 24 hours ahead. Use it as \`Authorization: ApiKey <token>\`.`,
    // Its answer holds a secret shown once; a stored copy would outlive the moment.
    idempotent: false,
    auth: 'bearer',
    request: { body: Joi.object({ name: name.required(), expires }).example({ name: 'stock-sync' }) },
    responses: {
      201: {
        description: 'The token, shown once.',
        schema: tokenView.keys({ token: Joi.string().required() }).meta({ component: 'CreatedPersonalAccessToken' }),
      },
      409: { description: 'The name is taken, or the user already has 5 active tokens.' },
    },
    handler: async ({ principal, body }) => ({
      status: 201,
      body: await s.pats.create(principal.userId, body.name, body.expires),
      headers: { 'Cache-Control': 'no-store' },
    }),
  }),

  defineRoute<'deletePersonalAccessToken', 'bearer'>({
    operationId: 'deletePersonalAccessToken',
    method: 'delete',
    path: '/user/personal-access-tokens',
    tag: 'Personal access tokens',
    summary: 'Delete (revoke) a personal access token by name; effective immediately',
    auth: 'bearer',
    request: { body: Joi.object({ name: name.required() }).example({ name: 'stock-sync' }) },
    responses: {
      204: { description: 'Deleted.' },
      404: { description: 'No token with that name.' },
    },
    handler: async ({ principal, body }) => {
      await s.pats.deleteByName(principal.userId, body.name);
      return { status: 204 };
    },
  }),
];

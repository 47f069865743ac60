import Joi from '../../joi';
import { redirectUriProblem, type OAuthAppView } from '../../services/auth/oauth-apps';
import { defineRoute } from '../route';
import { documentedAs, offsetPage, timestamp } from '../schemas';
import type { OAuthApps } from '../../services/auth/oauth-apps';
import { operatorPaging, operatorReason } from './operators';

const TAG = 'Operators';

const appParams = Joi.object({ id: Joi.string().max(100).required().description('The client id (`mts_app_…`).') });
/**
 * The shape of a redirect URI, for the published schema: https to a host name or address (its
 * last label starting with a letter, so never a malformed IPv4 address), or http to a loopback
 * host, an optional port, no fragment. A little narrower than the URL parser, so that whatever
 * matches it also passes the rule below.
 */
const REDIRECT_URI_SHAPE =
  /^(?:[hH][tT][tT][pP][sS]:\/\/(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?|[hH][tT][tT][pP][sS]?:\/\/(?:localhost|127\.0\.0\.1|\[::1\]))(?::[1-5]?[0-9]{1,4})?(?:[/?][^#]*)?$/;

const REDIRECT_URI_DESCRIPTION = 'Absolute, no fragment; https, or http on localhost / 127.0.0.1 / [::1] for development.';

/** The rule the CLI applies (`redirectUriProblem`), within the published shape, one message per field. */
const redirectUri = documentedAs(
  Joi.string()
    .max(2000)
    .custom((value: string, helpers) => {
      const problem =
        redirectUriProblem(value) ?? (REDIRECT_URI_SHAPE.test(value) ? null : `redirect URI ${value} is not of the accepted shape`);
      return problem ? helpers.message({ custom: problem }) : value;
    })
    .description(REDIRECT_URI_DESCRIPTION),
  Joi.string().max(2000).pattern(REDIRECT_URI_SHAPE).description(REDIRECT_URI_DESCRIPTION),
);

const appView = Joi.object({
  id: Joi.string().required().description('The client id.'),
  name: Joi.string().required(),
  redirectUris: Joi.array().items(Joi.string()).required(),
  public: Joi.boolean().required().description('A public application has no secret and relies on PKCE alone.'),
  createdAt: timestamp.required(),
  disabledAt: timestamp.allow(null).required().description('Set while disabled: its tokens and codes are refused.'),
  linkedUsers: Joi.number().integer().required().description('Users who linked the application.'),
}).meta({ component: 'OperatorOAuthApp' });

/** Named field by field, so nothing the service adds later (least of all a secret) leaks by accident. */
const view = (a: OAuthAppView) => ({
  id: a.id,
  name: a.name,
  redirectUris: a.redirectUris,
  public: !a.confidential,
  createdAt: a.createdAt,
  disabledAt: a.disabledAt,
  linkedUsers: a.linkedUsers,
});

// Answers carrying a client secret are shown once: never cached, never stored for an idempotent replay.
const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * Disable and enable are the same request and answer; they differ in words and in the switch, so
 * each route declares its operation and handler and takes the rest from here.
 */
function switchApp(change: {
  action: 'disable' | 'enable';
  summary: string;
  description: string;
  conflict: string;
  /** A realistic `reason`, the body's example. */
  exampleReason: string;
}) {
  return {
    method: 'post' as const,
    path: `/operator/oauth-apps/{id}/${change.action}`,
    tag: TAG,
    summary: change.summary,
    description: change.description,
    auth: 'operator' as const,
    request: { params: appParams, body: Joi.object({ reason: operatorReason }).example({ reason: change.exampleReason }) },
    responses: {
      200: { description: 'The application.', schema: appView },
      404: { description: 'No such application.' },
      409: { description: change.conflict },
    },
  };
}

/** The services these routes use (their feature module's, src/modules). */
export interface OperatorOAuthAppRouteServices {
  oauthApps: OAuthApps;
}

/** Third-party applications, registered and managed by operators (docs/auth.md, "Registration"). */
export const operatorOAuthAppRoutes = (s: OperatorOAuthAppRouteServices) => [
  defineRoute<'operatorRegisterOAuthApp', 'operator'>({
    operationId: 'operatorRegisterOAuthApp',
    method: 'post',
    path: '/operator/oauth-apps',
    tag: TAG,
    summary: 'Register a third-party application; a confidential one gets its client secret, shown only in this response',
    description:
      'The same registration as `npm run oauth:apps -- register`, recorded in the audit log (`oauth-app.register`, without the secret). ' +
      'Only the SHA-256 of the secret is stored.',
    // Its answer holds a secret shown once; a stored copy would outlive the moment.
    idempotent: false,
    auth: 'operator',
    request: {
      body: Joi.object({
        name: Joi.string().trim().min(1).max(100).required(),
        redirectUris: Joi.array().items(redirectUri).min(1).max(10).unique().required(),
        public: Joi.boolean()
          .default(false)
          .description('A browser or native application that cannot keep a secret: no secret, PKCE alone.'),
        reason: Joi.string().trim().max(2000).allow('').default('').description('Optional here; kept in the audit log.'),
      }).example({ name: 'Deck Builder', redirectUris: ['https://deckbuilder.example/callback'] }),
    },
    responses: {
      201: {
        description: 'The application, with its client secret (null for a public application), shown once.',
        schema: appView.keys({ clientSecret: Joi.string().allow(null).required() }).meta({ component: 'RegisteredOperatorOAuthApp' }),
      },
    },
    handler: async ({ principal, body }) => {
      const { client, clientSecret } = await s.oauthApps.register(
        { name: body.name, redirectUris: body.redirectUris, confidential: !body.public },
        { operatorId: principal.userId, reason: body.reason },
      );
      return { status: 201, body: { ...view(client), clientSecret }, headers: NO_STORE };
    },
  }),

  defineRoute<'operatorListOAuthApps', 'operator'>({
    operationId: 'operatorListOAuthApps',
    method: 'get',
    path: '/operator/oauth-apps',
    tag: TAG,
    summary: 'Third-party applications, newest first (never their secrets)',
    auth: 'operator',
    request: { query: Joi.object(operatorPaging) },
    responses: { 200: { description: 'Applications.', schema: offsetPage(appView).meta({ component: 'OperatorOAuthAppPage' }) } },
    handler: async ({ query }) => {
      const page = await s.oauthApps.page(query);
      return { status: 200, body: { ...page, items: page.items.map(view) } };
    },
  }),

  defineRoute<'operatorGetOAuthApp', 'operator'>({
    operationId: 'operatorGetOAuthApp',
    method: 'get',
    path: '/operator/oauth-apps/{id}',
    tag: TAG,
    summary: 'One third-party application (never its secret)',
    auth: 'operator',
    request: { params: appParams },
    responses: { 200: { description: 'The application.', schema: appView }, 404: { description: 'No such application.' } },
    handler: async ({ params }) => ({ status: 200, body: view(await s.oauthApps.get(params.id)) }),
  }),

  defineRoute<'operatorDisableOAuthApp', 'operator'>({
    operationId: 'operatorDisableOAuthApp',
    ...switchApp({
      action: 'disable',
      summary: "Disable an application: its users' tokens and unspent codes are refused from the next request on",
      description: 'Links are kept, so enabling it again restores them. Recorded in the audit log (`oauth-app.disable`).',
      conflict: '`oauth-app-disabled`: already disabled.',
      exampleReason: 'Client secret leaked in a public repository; disabled until the developer rotates it.',
    }),
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: view(await s.oauthApps.setDisabled(params.id, true, { operatorId: principal.userId, reason: body.reason })),
    }),
  }),

  defineRoute<'operatorEnableOAuthApp', 'operator'>({
    operationId: 'operatorEnableOAuthApp',
    ...switchApp({
      action: 'enable',
      summary: "Enable a disabled application: its users' links and unexpired tokens work again",
      description: 'Recorded in the audit log (`oauth-app.enable`).',
      conflict: '`oauth-app-enabled`: not disabled.',
      exampleReason: 'Secret rotated and the developer confirmed the leaked copy is removed.',
    }),
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: view(await s.oauthApps.setDisabled(params.id, false, { operatorId: principal.userId, reason: body.reason })),
    }),
  }),

  defineRoute<'operatorRotateOAuthAppSecret', 'operator'>({
    operationId: 'operatorRotateOAuthAppSecret',
    method: 'post',
    path: '/operator/oauth-apps/{id}/secret',
    tag: TAG,
    summary: "Rotate a confidential application's client secret: the new one is shown only in this response",
    description:
      'The previous secret stops working when this answers (no grace period): the application must switch at once. ' +
      "Users' links and their tokens stay; refreshing them needs the new secret. Recorded in the audit log " +
      '(`oauth-app.rotate-secret`, without the secret).',
    idempotent: false,
    auth: 'operator',
    request: {
      params: appParams,
      body: Joi.object({ reason: operatorReason }).example({
        reason: 'Developer reported the client secret leaked in a public repository.',
      }),
    },
    responses: {
      200: {
        description: 'The application and its new client secret, shown once.',
        schema: appView.keys({ clientSecret: Joi.string().required() }).meta({ component: 'RotatedOperatorOAuthAppSecret' }),
      },
      404: { description: 'No such application.' },
      409: { description: '`oauth-app-public`: a public application has no secret.' },
    },
    handler: async ({ principal, params, body }) => {
      const { client, clientSecret } = await s.oauthApps.rotateSecret(params.id, { operatorId: principal.userId, reason: body.reason });
      return { status: 200, body: { ...view(client), clientSecret }, headers: NO_STORE };
    },
  }),
];

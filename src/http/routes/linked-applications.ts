import Joi from '../../joi';
import { defineRoute } from '../route';
import { timestamp } from '../schemas';
import type { OAuthApps } from '../../services/auth/oauth-apps';

const applicationView = Joi.object({
  clientId: Joi.string().required(),
  name: Joi.string().required(),
  linkedAt: timestamp.required(),
}).meta({ component: 'LinkedApplication' });

/** The services these routes use (their feature module's, src/modules). */
export interface LinkedApplicationRouteServices {
  oauthApps: OAuthApps;
}

/**
 * The third-party applications a user has linked (docs/auth.md). Managing links takes the
 * user's own access token: an application cannot list or unlink others, or relink itself.
 */
export const linkedApplicationRoutes = (s: LinkedApplicationRouteServices) => [
  defineRoute<'listLinkedApplications', 'bearer'>({
    operationId: 'listLinkedApplications',
    method: 'get',
    path: '/user/applications',
    tag: 'Linked applications',
    summary: 'List the third-party applications linked to the account',
    auth: 'bearer',
    responses: { 200: { description: 'Linked applications, oldest link first.', schema: Joi.array().items(applicationView) } },
    handler: async ({ principal }) => ({ status: 200, body: await s.oauthApps.linked(principal.userId) }),
  }),

  defineRoute<'unlinkApplication', 'bearer'>({
    operationId: 'unlinkApplication',
    method: 'delete',
    path: '/user/applications/{clientId}',
    tag: 'Linked applications',
    summary: 'Unlink an application: its tokens stop working at once',
    auth: 'bearer',
    request: { params: Joi.object({ clientId: Joi.string().max(128).required() }) },
    responses: {
      204: { description: 'Unlinked; its access and refresh tokens are refused from now on.' },
      404: { description: 'The application is not linked.' },
    },
    handler: async ({ principal, params }) => {
      await s.oauthApps.unlink(principal.userId, params.clientId);
      return { status: 204 };
    },
  }),
];

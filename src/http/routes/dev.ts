import Joi from '../../joi';
import { defineLegacyRoute, type AnyRoute } from '../route';
import { email, timestamp } from '../schemas';
import type { Services } from '../services';

/**
 * Development-only routes (never mounted in production or tests): the e-mail outbox, so a
 * developer on the embedded defaults can read verification codes without an SMTP server.
 */
export const devRoutes = (s: Services): AnyRoute[] => [
  defineLegacyRoute<Record<string, never>, { to: string }, undefined, 'public'>({
    operationId: 'devEmails',
    method: 'get',
    path: '/dev/emails',
    tag: 'Development',
    summary: 'Read the e-mail outbox for an address (development only)',
    auth: 'public',
    request: { query: Joi.object({ to: email.required() }) },
    responses: {
      200: {
        description: 'Newest first, at most 20.',
        schema: Joi.array().items(
          Joi.object({
            id: Joi.string(),
            to: Joi.string(),
            subject: Joi.string(),
            text: Joi.string(),
            kind: Joi.string(),
            createdAt: timestamp,
            deliveredAt: timestamp.allow(null),
          }),
        ),
      },
    },
    handler: async ({ query }) => {
      const messages = await s.emailOutbox.recentTo(query.to);
      return { status: 200, body: messages.map((m) => ({ ...m })) };
    },
  }),
];

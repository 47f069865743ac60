import Joi from 'joi';
import { defineRoute } from '../route';
import { email } from '../schemas';
import type { Services } from '../services';

export const accountRoutes = (s: Services) => [
  defineRoute<Record<string, never>, Record<string, never>, { email: string }, 'bearer'>({
    operationId: 'requestEmailChange',
    method: 'patch',
    path: '/user/account/email',
    tag: 'Account',
    summary: 'Step 1 of an e-mail change: send a verification code to the new address',
    description:
      'The address is not changed yet. A six-digit code is e-mailed to the new address; it expires ' +
      '(15 minutes by default), works once, and a few wrong guesses retire it. A new request replaces any pending one.',
    auth: 'bearer',
    request: { body: Joi.object({ email: email.required() }) },
    responses: {
      204: { description: 'A code is on its way to the new address.' },
      409: { description: 'The address belongs to another account.' },
    },
    handler: async ({ principal, body }) => {
      await s.emailChange.request(principal.userId, body.email);
      return { status: 204 };
    },
  }),

  defineRoute<Record<string, never>, Record<string, never>, { email: string; code: string }, 'bearer'>({
    operationId: 'confirmEmailChange',
    method: 'put',
    path: '/user/account/email',
    tag: 'Account',
    summary: 'Step 2 of an e-mail change: confirm with the code received',
    auth: 'bearer',
    request: {
      body: Joi.object({ email: email.required(), code: Joi.string().pattern(/^\d{6}$/).required() }),
    },
    responses: {
      204: { description: 'The account e-mail is updated.' },
      400: { description: 'The code is wrong, expired or used, or the body is invalid.' },
      409: { description: 'The address now belongs to another account.' },
    },
    handler: async ({ principal, body }) => {
      await s.emailChange.confirm(principal.userId, body.email, body.code);
      return { status: 204 };
    },
  }),
];

import Joi from '../../joi';
import { MAX_PROFILE_LENGTH } from '../../services/account/account';
import { defineRoute } from '../route';
import { email, password, timestamp, username } from '../schemas';
import type { EmailChange } from '../../services/email-change';
import type { Accounts } from '../../services/account/account';
import type { AccountStatsService } from '../../services/account/account-stats';
import type { BillingPortal } from '../../services/account/billing-portal';

const accountView = Joi.object({
  id: Joi.string().required(),
  email: Joi.string().required(),
  username: Joi.string().required(),
  profile: Joi.string().allow(null).required(),
  avatar: Joi.string().allow(null).required(),
  cover: Joi.string().allow(null).required(),
  alertEmails: Joi.boolean()
    .required()
    .description('Whether alert notifications are e-mailed, as a digest at most every 15 minutes (docs/alerts.md).'),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
});

const uploadId = Joi.string().uuid().allow(null);

const accountStats = Joi.object({
  purchases: Joi.object({
    total: Joi.number().integer().required(),
    paid: Joi.number().integer().required(),
    completed: Joi.number().integer().required(),
  }).required(),
  spent: Joi.number().integer().min(0).required(),
  cases: Joi.object({ open: Joi.number().integer().required() }).required(),
  reviews: Joi.object({ written: Joi.number().integer().required(), received: Joi.number().integer().required() }).required(),
  unread: Joi.object({
    messages: Joi.number().integer().min(0).required().description('Unread messages across all conversations.'),
    conversations: Joi.number().integer().min(0).required().description('Conversations with at least one unread message.'),
  }).required(),
});

/** The services these routes use (their feature module's, src/modules). */
export interface AccountRouteServices {
  emailChange: EmailChange;
  accounts: Accounts;
  accountStats: AccountStatsService;
  billingPortal: BillingPortal;
}

export const accountRoutes = (s: AccountRouteServices) => [
  defineRoute<'getAccount', 'bearer'>({
    operationId: 'getAccount',
    method: 'get',
    path: '/user/account',
    tag: 'Account',
    summary: "The caller's account",
    auth: 'bearer',
    responses: { 200: { description: 'The account.', schema: accountView } },
    handler: async ({ principal }) => ({ status: 200, body: await s.accounts.get(principal.userId) }),
  }),

  defineRoute<'updateAccount', 'bearer'>({
    operationId: 'updateAccount',
    method: 'patch',
    path: '/user/account',
    tag: 'Account',
    summary: 'Change the username, profile text, avatar, cover, password or alert e-mails',
    description:
      `\`username\` follows the registration rules and is unique (409 \`username-taken\`). \`profile\` is stored as plain text (markup removed), at most ${MAX_PROFILE_LENGTH} characters. ` +
      '`avatar` and `cover` take the id of a finished upload of yours (`POST /uploads`), decoded and re-encoded as WebP at 256x256 and 1500x500; `null` removes them. ' +
      '`password` needs `current`; changing it signs out every other session (their refresh tokens are revoked). The e-mail changes through `/user/account/email`. ' +
      '`alertEmails` false stops the alert digest e-mails (docs/alerts.md); notifications still appear in the app.',
    auth: 'bearer',
    request: {
      body: Joi.object({
        username,
        profile: Joi.string()
          .allow('', null)
          .max(MAX_PROFILE_LENGTH * 4),
        avatar: uploadId,
        cover: uploadId,
        password: Joi.object({ current: Joi.string().max(256).required(), new: password.required() }),
        alertEmails: Joi.boolean().description('false: no alert e-mails (notifications still appear in the app).'),
      })
        .min(1)
        .example({ profile: 'Collecting Base Set holos since 1999. Combined postage on request.' })
        .example({ password: { current: 'correct horse battery', new: 'battery staple mewtwo 150' } })
        .example({ alertEmails: false }),
    },
    responses: {
      200: { description: 'The account.', schema: accountView },
      400: { description: 'Invalid fields, `current-password-incorrect`, `upload-not-ready` or `image-undecodable`.' },
      409: { description: '`username-taken`.' },
    },
    handler: async ({ principal, body }) => ({
      status: 200,
      body: await s.accounts.update(principal.userId, 'sessionId' in principal ? (principal.sessionId ?? null) : null, body),
    }),
  }),

  defineRoute<'getAccountStats', 'user'>({
    operationId: 'getAccountStats',
    method: 'get',
    path: '/user/account/stats',
    tag: 'Account',
    summary: "The caller's account stats: purchases by status, money spent (net of refunds), open cases, reviews written and received",
    description: 'Cached per user and invalidated in the same transaction as every change that moves a count (docs/account.md).',
    auth: 'user',
    responses: { 200: { description: 'Account stats.', schema: accountStats } },
    handler: async ({ principal }) => ({ status: 200, body: await s.accountStats.get(principal.userId) }),
  }),

  defineRoute<'createBillingPortalLink', 'bearer'>({
    operationId: 'createBillingPortalLink',
    method: 'post',
    path: '/user/billing-portal',
    tag: 'Account',
    summary: 'A signed, expiring link to the billing portal (invoices and payment history)',
    description:
      'Open `url` in a browser; it works without other credentials until `expiresAt` (15 minutes by default, `BILLING_PORTAL_LINK_TTL_SECONDS`).',
    auth: 'bearer',
    responses: {
      201: { description: 'The link.', schema: Joi.object({ url: Joi.string().uri().required(), expiresAt: timestamp.required() }) },
    },
    handler: async ({ principal }) => ({
      status: 201,
      body: s.billingPortal.link(principal.userId),
      headers: { 'Cache-Control': 'no-store' },
    }),
  }),

  defineRoute<'requestEmailChange', 'bearer'>({
    operationId: 'requestEmailChange',
    method: 'patch',
    path: '/user/account/email',
    tag: 'Account',
    summary: 'Step 1 of an e-mail change: send a verification code to the new address',
    description:
      'The address is not changed yet. A six-digit code is e-mailed to the new address; it expires ' +
      '(15 minutes by default), works once, and a few wrong guesses retire it. A new request replaces any pending one.',
    auth: 'bearer',
    request: { body: Joi.object({ email: email.required() }).example({ email: 'collector.new@example.com' }) },
    responses: {
      204: { description: 'A code is on its way to the new address.' },
      409: { description: '`email-taken`: the address belongs to another account; `email-unchanged`: it is already yours.' },
    },
    handler: async ({ principal, body }) => {
      await s.emailChange.request(principal.userId, body.email);
      return { status: 204 };
    },
  }),

  defineRoute<'confirmEmailChange', 'bearer'>({
    operationId: 'confirmEmailChange',
    method: 'put',
    path: '/user/account/email',
    tag: 'Account',
    summary: 'Step 2 of an e-mail change: confirm with the code received',
    auth: 'bearer',
    request: {
      body: Joi.object({
        email: email.required(),
        code: Joi.string()
          .pattern(/^\d{6}$/, 'the 6-digit code from the e-mail')
          .required(),
      }).example({ email: 'collector.new@example.com', code: '482913' }),
    },
    responses: {
      204: { description: 'The account e-mail is updated.' },
      400: { description: '`invalid-verification-code`: the code is wrong (each wrong guess counts); or the body is invalid.' },
      409: {
        description:
          '`no-pending-email-change`: no change to that address waits for a code (never requested, replaced by a newer request, ' +
          'already used, expired or retired after too many wrong guesses): request a new code. `email-taken`: the address now belongs to another account.',
      },
    },
    handler: async ({ principal, body }) => {
      await s.emailChange.confirm(principal.userId, body.email, body.code);
      return { status: 204 };
    },
  }),
];

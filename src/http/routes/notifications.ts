import Joi from '../../joi';
import { NOTIFICATION_KINDS, type Notifications } from '../../services/alerts/notifications';
import { defineRoute } from '../route';
import { cursorPage, cursorQuery, idParams, listing, pence, timestamp } from '../schemas';
import { SEARCH_CACHE } from './discover-common';

/** The services these routes use (the alerts module's, src/modules/alerts.ts). */
export interface NotificationRouteServices {
  notifications: Notifications;
}

const TAG = 'Alerts';

const notification = Joi.object({
  id: Joi.string().required(),
  kind: Joi.string()
    .valid(...NOTIFICATION_KINDS)
    .required()
    .description(
      '`PRICE_ALERT`: a listing fits one of your price alerts; `PRICE_DROP`, `ONE_LEFT`, `GONE`: a listing you watch dropped in price, has one unit left, is no longer for sale.',
    ),
  alertId: Joi.string()
    .allow(null)
    .required()
    .description('The price alert that fired; null for the watchlist (or once the alert is deleted).'),
  message: Joi.string().required().description('What fired, as a sentence.'),
  listing: Joi.object({
    id: Joi.string().required(),
    urn: Joi.string().required(),
    name: Joi.string().required(),
    price: pence.required().description('The unit price that fired, in pence.'),
    previousPrice: pence.allow(null).required().description('`PRICE_DROP`: the price before the drop.'),
  })
    .required()
    .meta({ component: 'NotificationListing' }),
  link: Joi.string().required().description('The listing: `GET /listings/{id}`.'),
  createdAt: timestamp.required(),
  readAt: timestamp.allow(null).required(),
}).meta({ component: 'Notification' });

export const notificationRoutes = (s: NotificationRouteServices) => [
  defineRoute<'listNotifications', 'user'>({
    operationId: 'listNotifications',
    method: 'get',
    path: '/user/notifications',
    tag: TAG,
    summary: "The caller's notifications, newest first",
    description:
      "The cursor envelope: pass a page's `nextCursor` as `cursor` to get the next; it is null on the last page. " +
      "A cursor not among the caller's notifications is 400 `invalid-cursor`. `unread=true` lists the unread ones only.",
    auth: 'user',
    request: {
      query: cursorQuery.keys({ unread: Joi.boolean().default(false) }),
    },
    responses: {
      200: {
        description: 'A page of notifications.',
        schema: cursorPage(notification).meta({ component: 'NotificationPage' }),
      },
      400: { description: '`invalid-cursor`, or `validation-failed`.' },
    },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.notifications.list(principal.userId, query) }),
  }),

  defineRoute<'countUnreadNotifications', 'user'>({
    operationId: 'countUnreadNotifications',
    method: 'get',
    path: '/user/notifications/unread',
    tag: TAG,
    summary: 'How many of the caller’s notifications are unread',
    auth: 'user',
    responses: { 200: { description: 'The count.', schema: Joi.object({ unread: Joi.number().integer().min(0).required() }) } },
    handler: async ({ principal }) => ({ status: 200, body: { unread: await s.notifications.unreadCount(principal.userId) } }),
  }),

  defineRoute<'markAllNotificationsRead', 'user'>({
    operationId: 'markAllNotificationsRead',
    method: 'post',
    path: '/user/notifications/read',
    tag: TAG,
    summary: 'Mark every notification of the caller read',
    auth: 'user',
    responses: { 200: { description: 'How many were unread.', schema: Joi.object({ marked: Joi.number().integer().min(0).required() }) } },
    handler: async ({ principal }) => ({ status: 200, body: { marked: await s.notifications.markAllRead(principal.userId) } }),
  }),

  defineRoute<'markNotificationRead', 'user'>({
    operationId: 'markNotificationRead',
    method: 'post',
    path: '/user/notifications/{id}/read',
    tag: TAG,
    summary: 'Mark one notification read',
    description: 'Marking it again changes nothing: `readAt` stays the first time.',
    auth: 'user',
    request: { params: idParams },
    responses: {
      200: { description: 'The notification.', schema: notification },
      404: { description: "No such notification, or not the caller's." },
    },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.notifications.markRead(principal.userId, params.id) }),
  }),

  defineRoute<'getListing', 'public'>({
    operationId: 'getListing',
    method: 'get',
    path: '/listings/{id}',
    tag: 'Discover',
    summary: 'One live listing, as listing search shows it',
    description: 'What a notification links to. A listing buyers cannot buy now (deleted, hidden, sold out, its seller away) is 404.',
    auth: 'public',
    request: { params: idParams },
    responses: { 200: { description: 'The listing.', schema: listing }, 404: { description: 'No such live listing.' } },
    handler: async ({ params }) => ({
      status: 200,
      body: await s.notifications.listing(params.id),
      headers: { 'Cache-Control': SEARCH_CACHE },
    }),
  }),
];

import Joi from '../../joi';
import type { DeliveryOptionInput } from '../../services/sellers/delivery-options';
import { MAX_DELIVERY_OPTIONS } from '../../services/sellers/delivery-options';
import { defineRoute } from '../route';
import { idParams, ISO_3166_1, timestamp } from '../schemas';
import { sellerView } from './seller';
import type { Sellers } from '../../services/sellers';
import type { SellerStatsService } from '../../services/sellers/seller-stats';
import type { SellerDashboard } from '../../services/sellers/dashboard';
import type { DeliveryOptions } from '../../services/sellers/delivery-options';

const count = Joi.number().integer().min(0).required();
const sellerStats = Joi.object({
  orders: Joi.object({ total: count, open: count, waiting: count }).required(),
  cases: Joi.object({ open: count }).required(),
  listings: Joi.object({ total: count, invalid: count }).required(),
}).meta({ component: 'SellerStats' });

const deliveryOptionInput = Joi.object<DeliveryOptionInput>({
  name: Joi.string().trim().min(1).max(100).required(),
  price: Joi.number().integer().min(0).max(1_000_000).required().description('Pence.'),
  tracked: Joi.boolean().required(),
  countries: Joi.array()
    .items(
      Joi.string()
        .uppercase()
        .pattern(/^[A-Z]{2}$/, ISO_3166_1),
    )
    .min(1)
    .max(250)
    .unique()
    .required(),
})
  .example({ name: 'Posti tracked parcel', price: 690, tracked: true, countries: ['FI', 'SE', 'EE'] })
  .meta({ component: 'DeliveryOptionInput' });
const deliveryOption = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  price: Joi.number().integer().required(),
  tracked: Joi.boolean().required(),
  countries: Joi.array().items(Joi.string()).required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
}).meta({ component: 'DeliveryOption' });
/** The services these routes use (their feature module's, src/modules). */
export interface SellerAccountRouteServices {
  sellers: Sellers;
  sellerStats: SellerStatsService;
  sellerDashboard: SellerDashboard;
  deliveryOptions: DeliveryOptions;
}

export const sellerAccountRoutes = (s: SellerAccountRouteServices) => [
  defineRoute<'sellerStats', 'seller'>({
    operationId: 'sellerStats',
    method: 'get',
    path: '/seller/stats',
    tag: 'Seller',
    summary: "The caller's seller stats",
    description: 'Cached per process and recomputed whenever listings, orders or cases of the seller have changed.',
    auth: 'seller',
    responses: { 200: { description: 'Seller stats.', schema: sellerStats } },
    handler: async ({ principal }) => ({ status: 200, body: await s.sellerStats.get(principal.userId) }),
  }),

  defineRoute<'sellerDashboard', 'seller'>({
    operationId: 'sellerDashboard',
    method: 'get',
    path: '/seller/dashboard',
    tag: 'Seller',
    summary: 'Links to the payment provider dashboards (payouts, billing)',
    description:
      "Each link is signed and expires at `expiresAt` (the billing portal's lifetime, 15 minutes by default): ask again for fresh links rather than storing them.",
    auth: 'seller',
    responses: {
      200: {
        description: 'Dashboard links.',
        schema: Joi.object({
          links: Joi.object({ payouts: Joi.string().uri().required(), billing: Joi.string().uri().required() }).required(),
          expiresAt: timestamp.required(),
        }),
      },
    },
    handler: async ({ principal }) => ({ status: 200, body: s.sellerDashboard.links(principal.userId) }),
  }),

  defineRoute<'setSellerVacation', 'seller'>({
    operationId: 'setSellerVacation',
    method: 'put',
    path: '/seller/vacation',
    tag: 'Seller',
    summary: 'Turn vacation mode on or off',
    description: "While on, none of the seller's listings is shown to or purchasable by buyers; the listings themselves are unchanged.",
    auth: 'seller',
    request: { body: Joi.object({ enabled: Joi.boolean().required() }).example({ enabled: true }) },
    responses: { 200: { description: 'The seller account.', schema: sellerView } },
    handler: async ({ principal, body }) => ({ status: 200, body: await s.sellers.setVacation(principal.userId, body.enabled) }),
  }),

  defineRoute<'listDeliveryOptions', 'seller'>({
    operationId: 'listDeliveryOptions',
    method: 'get',
    path: '/seller/delivery-options',
    tag: 'Delivery options',
    summary: "The caller's delivery options",
    auth: 'seller',
    responses: { 200: { description: 'Delivery options, oldest first.', schema: Joi.array().items(deliveryOption) } },
    handler: async ({ principal }) => ({ status: 200, body: await s.deliveryOptions.list(principal.userId) }),
  }),

  defineRoute<'createDeliveryOption', 'seller'>({
    operationId: 'createDeliveryOption',
    method: 'post',
    path: '/seller/delivery-options',
    tag: 'Delivery options',
    summary: 'Create a delivery option',
    description: `At most ${MAX_DELIVERY_OPTIONS} per seller. \`countries\` lists where it delivers (ISO 3166-1 alpha-2).`,
    auth: 'seller',
    request: { body: deliveryOptionInput },
    responses: {
      201: { description: 'The delivery option.', schema: deliveryOption },
      409: { description: '`delivery-option-limit-reached`.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.deliveryOptions.create(principal.userId, body) }),
  }),

  defineRoute<'updateDeliveryOption', 'seller'>({
    operationId: 'updateDeliveryOption',
    method: 'put',
    path: '/seller/delivery-options/{id}',
    tag: 'Delivery options',
    summary: 'Replace a delivery option',
    auth: 'seller',
    request: { params: idParams, body: deliveryOptionInput },
    responses: {
      200: { description: 'The delivery option.', schema: deliveryOption },
      404: { description: "No such delivery option of the caller's." },
    },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.deliveryOptions.update(principal.userId, params.id, body),
    }),
  }),

  defineRoute<'deleteDeliveryOption', 'seller'>({
    operationId: 'deleteDeliveryOption',
    method: 'delete',
    path: '/seller/delivery-options/{id}',
    tag: 'Delivery options',
    summary: 'Delete a delivery option',
    auth: 'seller',
    request: { params: idParams },
    responses: { 204: { description: 'Deleted.' }, 404: { description: "No such delivery option of the caller's." } },
    handler: async ({ principal, params }) => {
      await s.deliveryOptions.delete(principal.userId, params.id);
      return { status: 204 };
    },
  }),
];

import Joi from '../../joi';
import { CASE_REASONS } from '../../services/orders/order-engine';
import { defineRoute } from '../route';
import {
  address,
  caseOutcomes,
  createdBefore,
  idParams,
  itemQuantities,
  offsetPage,
  orderView,
  pagedQuery,
  pence,
  timestamp,
} from '../schemas';
import type { Purchases } from '../../services/orders/purchases';
import { PURCHASE_STATUSES } from '../../domain/orders/order-machine';

const amount = pence.required();

const purchaseFields = {
  id: Joi.string().required(),
  status: Joi.string()
    .valid(...PURCHASE_STATUSES)
    .required()
    .description(
      'PAID until every order is settled; then COMPLETED, or CANCELLED when nothing was sold (every order cancelled or refunded in full).',
    ),
  subtotal: amount,
  delivery: amount,
  fee: amount,
  feeRefunded: amount.description('What of `fee` was refunded: all of it once the purchase is CANCELLED, else 0.'),
  total: amount,
  deliveryAddress: address.required(),
  completedAt: timestamp.allow(null).required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
};
const purchaseSummary = Joi.object(purchaseFields).meta({ component: 'PurchaseSummary' });
const purchaseView = Joi.object({
  ...purchaseFields,
  deadlines: Joi.object({
    reviewWindowClosesAt: timestamp.allow(null).required().description('When the review window of a COMPLETED purchase closes.'),
  }).required(),
  orders: Joi.array().items(orderView).required(),
}).meta({ component: 'Purchase' });

const purchaseFilters = pagedQuery.keys({
  status: Joi.array()
    .items(Joi.string().valid(...PURCHASE_STATUSES))
    .single()
    .description('Repeat for several: any of them.'),
  createdFrom: timestamp.description('Created at or after (ISO 8601).'),
  createdTo: createdBefore,
  sellerId: Joi.string().uuid().description('Purchases with an order from this seller.'),
  hasOpenCase: Joi.boolean().description('true: only purchases with a case not CLOSED; false: only those without.'),
});

const purchaseAction = Joi.object({
  action: Joi.string().valid('receive', 'dispute', 'request-cancel').required(),
  orderId: Joi.string().uuid().required(),
  reason: Joi.when('action', {
    is: 'dispute',
    then: Joi.string()
      .valid(...CASE_REASONS)
      .required(),
    otherwise: Joi.forbidden(),
  }),
  comment: Joi.when('action', { is: 'dispute', then: Joi.string().allow('').max(2000).default(''), otherwise: Joi.forbidden() }),
  items: Joi.when('action', { is: 'dispute', then: itemQuantities.required(), otherwise: Joi.forbidden() }),
  outcomes: Joi.when('action', { is: 'dispute', then: caseOutcomes, otherwise: Joi.forbidden() }),
})
  .example({ action: 'receive', orderId: '0191f3c2-cf93-7076-a8c9-0d1e2f304152' })
  .example({
    action: 'dispute',
    orderId: '0191f3c2-cf93-7076-a8c9-0d1e2f304152',
    reason: 'SNAD',
    comment: 'Listed as Near Mint, arrived with a crease across the artwork.',
    items: [{ id: '0191f3c2-8b5f-7c32-a4e5-6f7a8b9c0d1e', quantity: 1 }],
    outcomes: [{ type: 'REFUND', amount: 12000, comment: 'Partial refund; I keep the card.' }],
  })
  .example({ action: 'request-cancel', orderId: '0191f3c2-cf93-7076-a8c9-0d1e2f304152' })
  .meta({ component: 'PurchaseAction' });

/** The services these routes use (their feature module's, src/modules). */
export interface PurchaseRouteServices {
  purchases: Purchases;
}

export const purchaseRoutes = (s: PurchaseRouteServices) => [
  defineRoute<'listPurchases', 'user'>({
    operationId: 'listPurchases',
    method: 'get',
    path: '/user/purchases',
    tag: 'Purchases',
    summary: "The caller's purchases, paged and filtered",
    description: "Filters combine with AND; each is served by an index on the caller's purchases (docs/sellers-operators.md).",
    auth: 'user',
    request: { query: purchaseFilters },
    responses: { 200: { description: 'Purchases.', schema: offsetPage(purchaseSummary).meta({ component: 'PurchasePage' }) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.purchases.list(principal.userId, query) }),
  }),

  defineRoute<'getPurchase', 'user'>({
    operationId: 'getPurchase',
    method: 'get',
    path: '/user/purchases/{id}',
    tag: 'Purchases',
    summary: "One of the caller's purchases with its seller orders",
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The purchase.', schema: purchaseView }, 404: { description: "Not found or not the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.purchases.get(principal.userId, params.id) }),
  }),

  defineRoute<'updatePurchase', 'user'>({
    operationId: 'updatePurchase',
    method: 'put',
    path: '/user/purchases/{id}',
    tag: 'Purchases',
    summary:
      'Confirm receipt of an order (`receive`), open a case on its items (`dispute`) or ask its seller to cancel it (`request-cancel`)',
    description:
      '`request-cancel` (before shipment) tells the seller, who may cancel the order, refunding it in full. The purchase is COMPLETED when every order is received or cancelled (at least one received) and no case is open. Shipped orders are received automatically after `ORDER_AUTO_RECEIPT_SECONDS`.',
    auth: 'user',
    request: { params: idParams, body: purchaseAction },
    responses: {
      200: { description: 'The purchase after the action.', schema: purchaseView },
      400: { description: '`invalid-items`.' },
      404: { description: "Purchase or order not found, or not the caller's." },
      409: {
        description:
          '`order-not-shipped`, `order-already-received`, `item-already-disputed`, `order-already-shipped`, `order-cancelled`, `order-refunded` or `cancellation-already-requested` (a request is made once).',
      },
    },
    handler: async ({ principal, params, body }) => ({ status: 200, body: await s.purchases.act(principal.userId, params.id, body) }),
  }),
];

import Joi from '../../joi';
import { CASE_REASONS } from '../../services/orders/order-engine';
import { MAX_SHIPMENT_ATTACHMENTS } from '../../services/orders/shipment-attachments';
import { defineRoute } from '../route';
import {
  caseOutcomes,
  catalogUrn,
  createdBefore,
  idParams,
  itemQuantities,
  orderView,
  orNull,
  pagedQuery,
  pence,
  shipmentAttachment,
  timestamp,
  userSummary,
} from '../schemas';
import type { OrderUpdates } from '../../services/orders/order-updates';
import type { ShipmentTracking } from '../../services/orders/shipment-tracking';
import type { ShipmentAttachments } from '../../services/orders/shipment-attachments';
import type { SellerOrders } from '../../services/orders/seller-orders';

const amount = pence.required();

const orderSummary = Joi.object({
  id: Joi.string().required(),
  purchaseId: Joi.string().required(),
  status: Joi.string().required(),
  subtotal: amount,
  deliveryCharge: amount,
  total: amount,
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
  itemCount: Joi.number().integer().min(0).required(),
  shipmentCount: Joi.number().integer().min(0).required(),
  buyer: orNull(userSummary).required(),
}).meta({ component: 'SellerOrderSummary' });

const orderFilters = pagedQuery.keys({
  status: Joi.array()
    .items(Joi.string().valid('ACCEPTED', 'SHIPPED', 'RECEIVED'))
    .single()
    .description('Repeat for several: any of them.'),
  createdFrom: timestamp.description('Created at or after (ISO 8601).'),
  createdTo: createdBefore,
  buyerId: Joi.string().uuid().description('Orders of this buyer.'),
  urn: catalogUrn.description('Orders with an item of this catalog item.'),
  hasOpenCase: Joi.boolean().description('true: only orders with a case not CLOSED; false: only orders without one.'),
});

const trackingCorrection = Joi.object({
  trackingNumber: Joi.string().trim().min(1).max(100).required(),
  carrier: Joi.string().trim().min(1).max(100).description('Unchanged when absent.'),
  trackingUrl: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2000)
    .description("The new number's tracking page; the old URL is dropped when absent."),
}).example({
  trackingNumber: 'JJFI64523310000012345',
  carrier: 'Posti',
  trackingUrl: 'https://www.posti.fi/fi/seuranta#/lahetys/JJFI64523310000012345',
});

const shipmentParams = Joi.object({ id: Joi.string().uuid().required(), shipmentId: Joi.string().uuid().required() });

const sellerOrderAction = Joi.object({
  action: Joi.string().valid('ship', 'dispute', 'decline-cancel', 'cancel').required(),
  shipment: Joi.when('action', {
    is: 'ship',
    then: Joi.object({
      carrier: Joi.string().trim().min(1).max(100).required(),
      trackingNumber: Joi.string().trim().min(1).max(100).required(),
      trackingUrl: Joi.string()
        .uri({ scheme: ['http', 'https'] })
        .max(2000),
    }).required(),
    otherwise: Joi.forbidden(),
  }),
  items: Joi.when('action', { is: Joi.valid('cancel', 'decline-cancel'), then: Joi.forbidden(), otherwise: itemQuantities.required() }),
  reason: Joi.when('action', {
    is: 'dispute',
    then: Joi.string()
      .valid(...CASE_REASONS)
      .required(),
    otherwise: Joi.forbidden(),
  }),
  comment: Joi.when('action', { is: 'dispute', then: Joi.string().allow('').max(2000).default(''), otherwise: Joi.forbidden() }),
  outcomes: Joi.when('action', { is: 'dispute', then: caseOutcomes, otherwise: Joi.forbidden() }),
})
  .example({
    action: 'ship',
    shipment: {
      carrier: 'Posti',
      trackingNumber: 'JJFI64523310000012345',
      trackingUrl: 'https://www.posti.fi/fi/seuranta#/lahetys/JJFI64523310000012345',
    },
    items: [{ id: '0191f3c2-8b5f-7c32-a4e5-6f7a8b9c0d1e', quantity: 1 }],
  })
  .example({
    action: 'dispute',
    reason: 'OTHER',
    comment: 'The card was damaged in storage before dispatch; offering a full refund.',
    items: [{ id: '0191f3c2-8b5f-7c32-a4e5-6f7a8b9c0d1e', quantity: 1 }],
    outcomes: [{ type: 'REFUND', amount: 24999 }],
  })
  .example({ action: 'decline-cancel' })
  .example({ action: 'cancel' })
  .meta({ component: 'SellerOrderAction' });

/** The services these routes use (their feature module's, src/modules). */
export interface SellerOrderRouteServices {
  orderUpdates: OrderUpdates;
  shipmentTracking: ShipmentTracking;
  shipmentAttachments: ShipmentAttachments;
  sellerOrders: SellerOrders;
}

export const sellerOrderRoutes = (s: SellerOrderRouteServices) => [
  defineRoute<'listSellerOrders', 'seller'>({
    operationId: 'listSellerOrders',
    method: 'get',
    path: '/seller/orders',
    tag: 'Seller orders',
    summary: "The caller's orders, paged and filtered, with item (units) and shipment counts",
    description: "Filters combine with AND; each is served by an index on the caller's orders (docs/sellers-operators.md).",
    auth: 'seller',
    request: { query: orderFilters },
    responses: { 200: { description: 'Order summaries.', schema: Joi.array().items(orderSummary) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.sellerOrders.list(principal.userId, query) }),
  }),

  defineRoute<'getSellerOrder', 'seller'>({
    operationId: 'getSellerOrder',
    method: 'get',
    path: '/seller/orders/{id}',
    tag: 'Seller orders',
    summary: "One of the caller's orders in full",
    auth: 'seller',
    request: { params: idParams },
    responses: { 200: { description: 'The seller order.', schema: orderView }, 404: { description: "Not found or not the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.sellerOrders.get(principal.userId, params.id) }),
  }),

  defineRoute<'updateSellerOrder', 'seller'>({
    operationId: 'updateSellerOrder',
    method: 'post',
    path: '/seller/orders/{id}',
    tag: 'Seller orders',
    summary: 'Ship items (a shipment with carrier and tracking) or open a dispute on items',
    description:
      "`ship` ships the named accepted items (a quantity below the item's splits it); the order is SHIPPED when no item is left accepted. `dispute` opens a case (`reason`, `comment`, optional initial `outcomes`) on the named items and quantities. `cancel` (before anything shipped, on the buyer's request or not) cancels the order: stock restored, the buyer refunded the order's total, ORDER_CANCELLED. `decline-cancel` declines the buyer's pending cancellation request (409 `no-pending-cancellation-request` without one); shipping declines it too. Emits ORDER_UPDATED.",
    auth: 'seller',
    request: { params: idParams, body: sellerOrderAction },
    responses: {
      204: { description: 'Applied.' },
      400: { description: '`invalid-items`: every bad item is listed in `errors`.' },
      404: { description: "Not found or not the caller's." },
      409: {
        description:
          '`item-already-disputed`: an item is in an unclosed case; `order-already-shipped` / `order-cancelled` / `order-refunded`: too late to cancel; `no-pending-cancellation-request`: nothing to decline.',
      },
    },
    handler: async ({ principal, params, body }) => {
      await s.orderUpdates.apply(params.id, { role: 'seller', userId: principal.userId }, body);
      return { status: 204 };
    },
  }),

  defineRoute<'correctSellerShipmentTracking', 'seller'>({
    operationId: 'correctSellerShipmentTracking',
    method: 'put',
    path: '/seller/orders/{id}/shipments/{shipmentId}/tracking',
    tag: 'Seller orders',
    summary: "Correct a shipment's tracking number",
    description:
      'Replaces the tracking number (and optionally carrier and URL) of a shipment of an order not yet received: `trackingStatus` starts over at PRE_TRANSIT with an empty detail and tracking restarts for the new number. The same values again change nothing. Emits ORDER_UPDATED.',
    auth: 'seller',
    request: {
      params: shipmentParams,
      body: trackingCorrection,
    },
    responses: {
      204: { description: 'Corrected (or already so).' },
      404: { description: "Order not found or not the caller's, or not a shipment of it." },
      409: { description: '`order-already-received`: the tracking of a received order is final.' },
    },
    handler: async ({ principal, params, body }) => {
      await s.shipmentTracking.correct(principal.userId, params.id, params.shipmentId, body);
      return { status: 204 };
    },
  }),

  defineRoute<'attachSellerShipmentImage', 'seller'>({
    operationId: 'attachSellerShipmentImage',
    method: 'post',
    path: '/seller/orders/{id}/shipments/{shipmentId}/attachments',
    tag: 'Seller orders',
    summary: 'Attach a proof-of-postage image to a shipment',
    description: `Attaches one of the caller's finished image uploads (\`POST /uploads\`, then \`PUT\` the bytes: PNG, JPEG or WebP within the upload size cap) to a shipment of the caller's order, in any order status. A shipment carries at most ${MAX_SHIPMENT_ATTACHMENTS} images; the shipment's \`attachments\` list them for the seller (\`GET /seller/orders/{id}\`) and the buyer (\`GET /user/purchases/{id}\`). Attaching the same upload again answers the same attachment (200) and changes nothing. A new attachment emits ORDER_UPDATED.`,
    auth: 'seller',
    request: {
      params: shipmentParams,
      body: Joi.object({ uploadId: Joi.string().uuid().required().description("The id of a finished upload of the caller's.") }).example({
        uploadId: '0191f3c2-7a4e-7b21-9c3d-5e6f7a8b9c0d',
      }),
    },
    responses: {
      201: { description: 'Attached.', schema: shipmentAttachment },
      200: { description: 'Already attached to this shipment: the same attachment.', schema: shipmentAttachment },
      400: { description: "`upload-not-ready`: the upload is unknown, not the caller's, or has no bytes yet." },
      404: { description: "Order not found or not the caller's, or not a shipment of it." },
      409: {
        description: `\`upload-already-attached\`: the upload is attached to another shipment; \`attachment-limit-reached\`: the shipment has ${MAX_SHIPMENT_ATTACHMENTS} images.`,
      },
    },
    handler: async ({ principal, params, body }) => {
      const { attachment, created } = await s.shipmentAttachments.attach(principal.userId, params.id, params.shipmentId, body.uploadId);
      return { status: created ? 201 : 200, body: attachment };
    },
  }),

  defineRoute<'sellerOrderPackingSlip', 'seller'>({
    operationId: 'sellerOrderPackingSlip',
    method: 'get',
    path: '/seller/orders/{id}/packing-slip',
    tag: 'Seller orders',
    summary: "The packing slip of one of the caller's orders, as PDF (default) or CSV",
    auth: 'seller',
    request: { params: idParams, query: Joi.object({ format: Joi.string().valid('pdf', 'csv').default('pdf') }) },
    responses: {
      200: { description: 'The document (application/pdf, or text/csv with a header row).', contentType: 'application/pdf' },
      404: { description: "Not found or not the caller's." },
    },
    handler: async ({ principal, params, query }) => {
      const slip = await s.sellerOrders.packingSlip(principal.userId, params.id, query.format);
      return {
        status: 200,
        body: slip.body,
        contentType: slip.contentType,
        headers: { 'Content-Disposition': `attachment; filename="packing-slip-${params.id}.${query.format}"` },
      };
    },
  }),
];

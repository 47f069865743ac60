import Joi from '../../joi';
import type { SellerStatusView } from '../../services/sellers';
import { notFound } from '../../services/errors';
import { defineRoute } from '../route';
import { timestamp } from '../schemas';
import type { Sellers } from '../../services/sellers';

/** The seller account as the seller routes show it. */
export const sellerView = Joi.object({
  userId: Joi.string().required(),
  status: Joi.string().valid('ACTIVE', 'SUSPENDED').required(),
  vacation: Joi.boolean().required(),
  createdAt: timestamp.required(),
}).meta({ component: 'Seller' });

/** The services these routes use (their feature module's, src/modules). */
export interface SellerRouteServices {
  sellers: Sellers;
}

export const sellerRoutes = (s: SellerRouteServices) => [
  defineRoute<'onboardSeller', 'user'>({
    operationId: 'onboardSeller',
    method: 'post',
    path: '/seller',
    tag: 'Seller',
    summary: "Onboard the caller as a seller (creates the caller's seller account)",
    description: 'The only `/seller` route that does not itself require a seller account.',
    auth: 'user',
    responses: {
      201: { description: 'The new seller account.', schema: sellerView },
      409: { description: 'The caller already has a seller account.' },
    },
    handler: async ({ principal }) => ({ status: 201, body: await s.sellers.onboard(principal.userId) }),
  }),

  defineRoute<'sellerStatus', 'seller'>({
    operationId: 'sellerStatus',
    method: 'get',
    path: '/seller/status',
    tag: 'Seller',
    summary: "The caller's seller account status",
    auth: 'seller',
    responses: { 200: { description: 'Seller account status.', schema: sellerView } },
    handler: async ({ principal }) => {
      const account: SellerStatusView | null = await s.sellers.find(principal.userId);
      if (!account) throw notFound('Seller account');
      return { status: 200, body: account };
    },
  }),
];

import Joi from '../../joi';
import { defineRoute } from '../route';
import { cursorPage, cursorQuery, pence, transfer } from '../schemas';
import type { SellerMoney } from '../../services/money/seller-money';

/** The services these routes use (their feature module's, src/modules). */
export interface SellerMoneyRouteServices {
  sellerMoney: SellerMoney;
}

export const sellerMoneyRoutes = (s: SellerMoneyRouteServices) => [
  defineRoute<'listSellerTransfers', 'seller'>({
    operationId: 'listSellerTransfers',
    method: 'get',
    path: '/seller/transfers',
    tag: 'Seller finance',
    summary: "The caller's transfers (order shares released to available, reversals, and recoveries of refund losses), newest first",
    description:
      "The cursor envelope: pass a page's `nextCursor` as `cursor` to get the next; it is null on the last page. A cursor that this list did not return is a 400 `invalid-cursor`.",
    auth: 'seller',
    request: { query: cursorQuery },
    responses: {
      200: {
        description: 'A page of transfers.',
        schema: cursorPage(transfer).meta({ component: 'TransferPage' }),
      },
      400: { description: '`invalid-cursor`, or `validation-failed`.' },
    },
    handler: async ({ principal, query }) => {
      const { transfers, cursor } = await s.sellerMoney.transfers(principal.userId, query);
      return { status: 200, body: { items: transfers, nextCursor: cursor } };
    },
  }),

  defineRoute<'sellerBalance', 'seller'>({
    operationId: 'sellerBalance',
    method: 'get',
    path: '/seller/balance',
    tag: 'Seller finance',
    summary:
      "The caller's balance: `pending` (paid orders not yet released), `available` (released, not yet paid out) and when the next payout run starts",
    auth: 'seller',
    responses: {
      200: {
        description: 'The balance, in pence, read from the ledger.',
        schema: Joi.object({
          available: pence.required(),
          pending: pence.required(),
          currency: Joi.string().length(3).required(),
          nextPayoutDate: Joi.date()
            .iso()
            .allow(null)
            .required()
            .description(
              'When the next payout run pays the caller; null when it would pay nothing (nothing available, or the account is suspended).',
            ),
        }),
      },
    },
    handler: async ({ principal }) => ({ status: 200, body: await s.sellerMoney.balance(principal.userId) }),
  }),

  defineRoute<'listSellerPayouts', 'seller'>({
    operationId: 'listSellerPayouts',
    method: 'get',
    path: '/seller/payouts',
    tag: 'Seller finance',
    summary: "The caller's payouts (the payment provider's payouts, here the simulator's), newest first",
    description:
      "The spec fixes this answer as `{payouts, cursor}` (not the cursor envelope of the other lists): `cursor` is the payout id to continue after, null on the last page; a cursor not among the caller's payouts is 400 `invalid-cursor`.",
    auth: 'seller',
    request: { query: cursorQuery },
    responses: {
      200: {
        description: 'A page of payouts.',
        schema: Joi.object({
          payouts: Joi.array()
            .items(
              Joi.object({
                id: Joi.string().required(),
                amount: pence.required(),
                currency: Joi.string().length(3).required(),
                arrivalDate: Joi.string()
                  .pattern(/^\d{4}-\d{2}-\d{2}$/)
                  .required()
                  .description('The day the payout is expected in the bank account: a calendar date (YYYY-MM-DD, UTC), not a time.'),
                status: Joi.string().valid('CREATED', 'IN_TRANSIT', 'PAID', 'FAILED').required(),
              }),
            )
            .required(),
          cursor: Joi.string().allow(null).required(),
        }),
      },
      400: { description: '`invalid-cursor`, or `validation-failed`.' },
    },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.sellerMoney.payouts(principal.userId, query) }),
  }),
];

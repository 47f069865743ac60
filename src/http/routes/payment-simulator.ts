import Joi from 'joi';
import type { PaymentPage } from '../../services/checkout/checkouts';
import { formatPence } from '../../services/orders/documents';
import { defineRoute } from '../route';
import type { Services } from '../services';

type None = Record<string, never>;
const sessionParams = Joi.object({ sessionId: Joi.string().uuid().required() });


function page(session: PaymentPage): string {
  const open = session.status === 'OPEN';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Payment simulator</title></head>
<body>
<h1>Payment simulator</h1>
<p>Checkout ${session.id}: ${formatPence(session.total)} (${session.status.toLowerCase()}).</p>
${
  open
    ? `<form method="post"><button name="outcome" value="success">Pay</button> <button name="outcome" value="failure">Fail payment</button></form>`
    : '<p>This checkout is closed.</p>'
}
</body></html>`;
}

/**
 * The built-in payment simulator (docs/architecture.md): the checkout `url` is this hosted page, and
 * posting its form completes or fails the payment. Public: the unguessable session id is the
 * capability, as with a payment provider's hosted page.
 */
export const paymentSimulatorRoutes = (s: Services) => [
  defineRoute<{ sessionId: string }, None, undefined, 'public'>({
    operationId: 'paymentPage',
    method: 'get',
    path: '/pay/{sessionId}',
    tag: 'Payment simulator',
    summary: 'The hosted payment page of a checkout session',
    auth: 'public',
    request: { params: sessionParams },
    responses: { 200: { description: 'An HTML page with a Pay and a Fail button.', contentType: 'text/html' }, 404: { description: 'No such session.' } },
    handler: async ({ params }) => ({ status: 200, body: page(await s.checkouts.paymentPage(params.sessionId)), contentType: 'text/html' }),
  }),

  defineRoute<{ sessionId: string }, None, { outcome: 'success' | 'failure' }, 'public'>({
    operationId: 'settlePayment',
    method: 'post',
    path: '/pay/{sessionId}',
    tag: 'Payment simulator',
    summary: 'Complete or fail the payment of a checkout session',
    description:
      'Success commits the purchase and answers 303 to the `successUrl` with `purchase=<id>` appended; repeating it answers the same redirect and changes nothing. Failure releases the holds.',
    auth: 'public',
    request: { params: sessionParams, body: Joi.object({ outcome: Joi.string().valid('success', 'failure').required() }), bodyTypes: ['form', 'json'] },
    responses: {
      200: { description: 'Payment failed; the listings are released.', contentType: 'text/html' },
      303: { description: 'Paid: redirect to the successUrl with `purchase` appended.' },
      404: { description: 'No such session.' },
      409: { description: '`checkout-closed`: the session already failed or expired.' },
    },
    handler: async ({ params, body }) => {
      const result = await s.checkouts.settle(params.sessionId, body.outcome);
      if (result.outcome === 'paid') return { status: 303, headers: { Location: result.redirect } };
      return { status: 200, body: page(await s.checkouts.paymentPage(params.sessionId)), contentType: 'text/html' };
    },
  }),
];

import Joi from 'joi';
import type { PaymentPage } from '../../services/checkout/checkouts';
import type { BillingPortalPage } from '../../services/account/billing-portal';
import { formatPence } from '../../services/orders/documents';
import { defineRoute } from '../route';
import type { Services } from '../services';

type None = Record<string, never>;
const sessionParams = Joi.object({ sessionId: Joi.string().uuid().required() });


/** One look for every page of the simulator (payment and billing portal); inline, as the pages are offline-safe. */
const STYLE = `<style>
body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.5rem;border-bottom:3px solid #2f5bd3;padding-bottom:.4rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #d8dce6}
td.money,th.money{text-align:right;font-variant-numeric:tabular-nums}button{font-size:1rem;padding:.4rem 1rem}
.note{color:#5b6475;font-size:.9rem}
</style>`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const day = (d: Date) => new Date(d).toISOString().slice(0, 10);

function page(session: PaymentPage): string {
  const open = session.status === 'OPEN';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Payment simulator</title>${STYLE}</head>
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

function billingPage(p: BillingPortalPage): string {
  const invoices = p.invoices.length
    ? `<table><thead><tr><th>Invoice</th><th>Date</th><th>Purchase</th><th class="money">Total</th></tr></thead><tbody>${p.invoices
        .map((i) => `<tr><td>${escapeHtml(i.number)}</td><td>${day(i.createdAt)}</td><td>${i.purchaseId}</td><td class="money">${formatPence(i.total)}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p>No invoices yet.</p>';
  const payments = p.payments.length
    ? `<table><thead><tr><th>Date</th><th>Checkout</th><th>Status</th><th class="money">Amount</th></tr></thead><tbody>${p.payments
        .map((x) => `<tr><td>${day(x.createdAt)}</td><td>${x.id}</td><td>${x.status.toLowerCase()}</td><td class="money">${formatPence(x.total)}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p>No payments yet.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Billing</title>${STYLE}</head>
<body>
<h1>Billing for ${escapeHtml(p.username)}</h1>
<h2>Invoices</h2>
${invoices}
<h2>Payment history</h2>
${payments}
<p class="note">This link expires at ${p.expiresAt.toISOString()}.</p>
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

  defineRoute<{ token: string }, None, undefined, 'public'>({
    operationId: 'billingPortalPage',
    method: 'get',
    path: '/billing-portal/{token}',
    tag: 'Payment simulator',
    summary: "The billing portal: the user's invoices and payment history",
    description: 'Opened through the signed, expiring link from `POST /user/billing-portal`; the link is the credential.',
    auth: 'public',
    request: { params: Joi.object({ token: Joi.string().max(400).pattern(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/).required() }) },
    responses: {
      200: { description: 'An HTML page.', contentType: 'text/html' },
      404: { description: '`billing-link-invalid`: forged, altered or expired.' },
    },
    handler: async ({ params }) => ({
      status: 200,
      body: billingPage(await s.billingPortal.page(params.token)),
      contentType: 'text/html',
      headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
    }),
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

import Joi from '../../joi';
import type { PaymentPage } from '../../services/checkout/checkouts';
import type { BillingPortalPage } from '../../services/account/billing-portal';
import { formatPence } from '../../domain/money/pence';
import { day, escapeHtml, htmlPage, LINKED_PAGE_HEADERS, PAGE_HEADERS } from '../pages';
import { defineRoute } from '../route';
import { signedLinkParams } from '../schemas';
import type { BillingPortal } from '../../services/account/billing-portal';
import type { Checkouts } from '../../services/checkout/checkouts';

const sessionParams = Joi.object({ sessionId: Joi.string().uuid().required() });

function page(session: PaymentPage): string {
  const open = session.status === 'OPEN';
  return htmlPage(
    'Payment simulator',
    `<p class="muted">Stands in for a payment provider's hosted page.</p>
<dl class="facts"><dt>Checkout</dt><dd>${escapeHtml(session.id)}</dd><dt>Status</dt><dd>${escapeHtml(session.status.toLowerCase())}</dd></dl>
<p class="amount">${escapeHtml(formatPence(session.total))}</p>
${
  open
    ? `<form method="post">
<div class="actions"><button name="outcome" value="success">Pay ${escapeHtml(formatPence(session.total))}</button>
<button class="secondary" name="outcome" value="failure">Fail payment</button></div>
</form>`
    : '<p role="status">This checkout is closed.</p>'
}`,
  );
}

function billingPage(p: BillingPortalPage): string {
  const invoices = p.invoices.length
    ? `<table><thead><tr><th scope="col">Invoice</th><th scope="col">Date</th><th scope="col">Purchase</th><th scope="col" class="money">Total</th></tr></thead><tbody>${p.invoices
        .map(
          (i) =>
            `<tr><td>${escapeHtml(i.number)}</td><td>${day(i.createdAt)}</td><td>${escapeHtml(i.purchaseId)}</td><td class="money">${formatPence(i.total)}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>No invoices yet.</p>';
  const payments = p.payments.length
    ? `<table><thead><tr><th scope="col">Date</th><th scope="col">Checkout</th><th scope="col">Status</th><th scope="col" class="money">Amount</th></tr></thead><tbody>${p.payments
        .map(
          (x) =>
            `<tr><td>${day(x.createdAt)}</td><td>${escapeHtml(x.id)}</td><td>${escapeHtml(x.status.toLowerCase())}</td><td class="money">${formatPence(x.total)}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>No payments yet.</p>';
  return htmlPage(
    `Billing for ${p.username}`,
    `<h2>Invoices</h2>
${invoices}
<h2>Payment history</h2>
${payments}
<p class="note">This link expires at ${p.expiresAt.toISOString()}.</p>`,
    { noindex: true },
  );
}

/** The services these routes use (their feature module's, src/modules). */
export interface PaymentSimulatorRouteServices {
  billingPortal: BillingPortal;
  checkouts: Checkouts;
}

/**
 * The built-in payment simulator (docs/architecture.md): the checkout `url` is this hosted page, and
 * posting its form completes or fails the payment. Public: the unguessable session id is the
 * capability, as with a payment provider's hosted page.
 */
export const paymentSimulatorRoutes = (s: PaymentSimulatorRouteServices) => [
  defineRoute<'paymentPage', 'public'>({
    operationId: 'paymentPage',
    method: 'get',
    path: '/pay/{sessionId}',
    tag: 'Payment simulator',
    summary: 'The hosted payment page of a checkout session',
    auth: 'public',
    request: { params: sessionParams },
    responses: {
      200: { description: 'An HTML page with a Pay and a Fail button.', contentType: 'text/html' },
      404: { description: 'No such session.' },
    },
    handler: async ({ params }) => ({
      status: 200,
      body: page(await s.checkouts.paymentPage(params.sessionId)),
      contentType: 'text/html',
      headers: PAGE_HEADERS,
    }),
  }),

  defineRoute<'billingPortalPage', 'public'>({
    operationId: 'billingPortalPage',
    method: 'get',
    path: '/billing-portal/{token}',
    tag: 'Payment simulator',
    summary: "The billing portal: the user's invoices and payment history",
    description: 'Opened through the signed, expiring link from `POST /user/billing-portal`; the link is the credential.',
    auth: 'public',
    request: { params: signedLinkParams },
    responses: {
      200: { description: 'An HTML page.', contentType: 'text/html' },
      404: { description: '`billing-link-invalid`: forged, altered or expired.' },
    },
    handler: async ({ params }) => ({
      status: 200,
      body: billingPage(await s.billingPortal.page(params.token)),
      contentType: 'text/html',
      headers: LINKED_PAGE_HEADERS,
    }),
  }),

  defineRoute<'settlePayment', 'public'>({
    operationId: 'settlePayment',
    method: 'post',
    path: '/pay/{sessionId}',
    tag: 'Payment simulator',
    summary: 'Complete or fail the payment of a checkout session',
    description:
      'Success commits the purchase and answers 303 to the `successUrl` with `purchase=<id>` appended; repeating it answers the same redirect and changes nothing. Failure releases the holds.',
    auth: 'public',
    request: {
      params: sessionParams,
      body: Joi.object({ outcome: Joi.string().valid('success', 'failure').required() })
        .example({ outcome: 'success' })
        .example({ outcome: 'failure' }),
      bodyTypes: ['form', 'json'],
    },
    responses: {
      200: { description: 'Payment failed; the listings are released.', contentType: 'text/html' },
      303: { description: 'Paid: redirect to the successUrl with `purchase` appended.' },
      404: { description: 'No such session.' },
      409: { description: '`checkout-closed`: the session already failed or expired.' },
    },
    handler: async ({ params, body }) => {
      const result = await s.checkouts.settle(params.sessionId, body.outcome);
      if (result.outcome === 'paid') return { status: 303, headers: { Location: result.redirect } };
      return { status: 200, body: page(await s.checkouts.paymentPage(params.sessionId)), contentType: 'text/html', headers: PAGE_HEADERS };
    },
  }),
];

import type { SellerBillingPage, SellerPayoutsPage } from '../../services/money/money-pages';
import { formatPence } from '../../domain/money/pence';
import { day, escapeHtml, htmlPage, LINKED_PAGE_HEADERS } from '../pages';
import { defineRoute } from '../route';
import { signedLinkParams } from '../schemas';
import type { SellerMoneyPages } from '../../services/money/money-pages';

/** A signed amount: what was given back shows as −£x. */
const signedPence = (pence: number) => (pence < 0 ? `−${formatPence(-pence)}` : formatPence(pence));
/** An id as a person compares it: its distinct end, the whole id on hover. */
const shortId = (id: string) => `<abbr title="${escapeHtml(id)}">…${escapeHtml(id.slice(-8))}</abbr>`;
const lower = (text: string) => escapeHtml(text.toLowerCase().replace(/_/g, ' '));

/** A table, or `empty` when there are no rows. Cells are HTML built with escaped values; `money` columns align right. */
function table(head: Array<string | { money: string }>, rows: Array<{ attrs: string; cells: string[] }>, empty: string): string {
  if (rows.length === 0) return `<p>${escapeHtml(empty)}</p>`;
  const money = head.map((h) => typeof h !== 'string');
  const th = head
    .map((h) => (typeof h === 'string' ? `<th scope="col">${h}</th>` : `<th scope="col" class="money">${h.money}</th>`))
    .join('');
  const body = rows
    .map((r) => `<tr ${r.attrs}>${r.cells.map((c, i) => (money[i] ? `<td class="money">${c}</td>` : `<td>${c}</td>`)).join('')}</tr>`)
    .join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

const expiry = (expiresAt: Date) =>
  `<p class="note">Payment simulator: stands in for the payment provider's pages. This link expires at ${expiresAt.toISOString()}.</p>`;

function payoutsPage(p: SellerPayoutsPage): string {
  const next = p.balance.nextPayoutDate;
  return htmlPage(
    `Payouts for ${p.username}`,
    `<h2>Balance</h2>
<dl class="facts"><dt>Available</dt><dd id="available">${formatPence(p.balance.available)}</dd><dt>Pending</dt><dd id="pending">${formatPence(p.balance.pending)}</dd><dt>Next payout</dt>${next ? `<dd id="next-payout" data-at="${escapeHtml(next)}">${day(next)} ${escapeHtml(next.slice(11, 16))} UTC</dd>` : '<dd id="next-payout">None due: nothing is available to pay out</dd>'}</dl>
<h2>Payouts</h2>
${table(
  ['Status', 'Arrival date', { money: 'Amount' }],
  p.payouts.map((x) => ({
    attrs: `data-payout="${escapeHtml(x.id)}"`,
    cells: [lower(x.status), escapeHtml(x.arrivalDate), formatPence(x.amount)],
  })),
  'No payouts yet.',
)}
<h2>Recent transfers</h2>
${table(
  ['Order', 'Type', 'Status', 'Available on', { money: 'Amount' }],
  p.transfers.map((t) => ({
    attrs: `data-transfer="${escapeHtml(t.id)}"`,
    cells: [
      shortId(t.orderId),
      lower(t.type),
      lower(t.status),
      day(t.availableOn),
      // A reversal or a recovery takes money out of available.
      t.type === 'TRANSFER' ? formatPence(t.amount) : signedPence(-t.amount),
    ],
  })),
  'No transfers yet.',
)}
${expiry(p.expiresAt)}`,
    { noindex: true },
  );
}

function billingPage(p: SellerBillingPage): string {
  const net = p.fees.reduce((sum, f) => sum + f.amount, 0);
  const method = p.paymentMethod
    ? `Simulated bank account${p.paymentMethod.refusesPayouts ? ' — set to refuse payouts (account closed)' : ''}.`
    : 'None on file. This is a simulator: seller fees are taken from each order before its share reaches your balance, so no card is needed.';
  return htmlPage(
    `Billing for ${p.username}`,
    `<h2>Seller fees</h2>
${table(
  ['Date', 'Order', 'Entry', { money: 'Fee' }],
  p.fees.map((f) => ({
    attrs: `data-order="${escapeHtml(f.orderId)}"`,
    cells: [day(f.createdAt), shortId(f.orderId), f.event === 'PAYMENT' ? 'charged' : 'returned (refund)', signedPence(f.amount)],
  })),
  'No seller fees yet.',
)}
${p.fees.length ? `<p>Net seller fees: <strong id="net-fees">${signedPence(net)}</strong></p>` : ''}
<h2>Refunds</h2>
${table(
  ['Date', 'Order', 'Reason', 'Kind', { money: 'Refunded' }],
  p.refunds.map((r) => ({
    attrs: `data-order="${escapeHtml(r.orderId)}"`,
    cells: [day(r.createdAt), shortId(r.orderId), lower(r.reason), lower(r.kind), formatPence(r.amount)],
  })),
  'No refunds.',
)}
<h2>Reversals</h2>
${table(
  ['Date', 'Order', { money: 'Taken from available' }],
  p.reversals.map((r) => ({
    attrs: `data-order="${escapeHtml(r.orderId)}"`,
    cells: [day(r.createdAt), shortId(r.orderId), signedPence(-r.amount)],
  })),
  'No reversals.',
)}
<h2>Refund losses and recoveries</h2>
${table(
  ['Date', 'Order', 'Entry', { money: 'Owed to the platform' }],
  p.losses.map((l) => ({
    attrs: `data-loss="${escapeHtml(l.orderId)}"`,
    cells: [
      day(l.createdAt),
      shortId(l.orderId),
      l.event === 'REFUND' ? 'refund covered by the platform (already paid out)' : 'repaid from your earnings',
      signedPence(l.owed),
    ],
  })),
  'No refund losses.',
)}
<p>Still owed: <strong id="owed">${formatPence(p.owed)}</strong>. It is repaid from your next releases before they reach your balance.</p>
<h2>Payment method</h2>
<p id="payment-method">${escapeHtml(method)}</p>
${expiry(p.expiresAt)}`,
    { noindex: true },
  );
}

const pageResponses = {
  200: { description: 'An HTML page.', contentType: 'text/html' },
  404: { description: '`simulator-link-invalid`: forged, altered, expired, or made for the other page.' },
} as const;

/** The services these routes use (their feature module's, src/modules). */
export interface MoneySimulatorRouteServices {
  sellerMoneyPages: SellerMoneyPages;
}

/**
 * The payment simulator's seller pages behind the `GET /seller/dashboard` links (docs/money.md).
 * Public routes: the signed, expiring link is the credential, as with the billing portal.
 */
export const moneySimulatorRoutes = (s: MoneySimulatorRouteServices) => [
  defineRoute<'sellerPayoutsPage', 'public'>({
    operationId: 'sellerPayoutsPage',
    method: 'get',
    path: '/simulator/payouts/{token}',
    tag: 'Payment simulator',
    summary: "The seller's payouts page: balance, payouts and recent transfers",
    description: 'Opened through the signed, expiring `links.payouts` of `GET /seller/dashboard`; the link is the credential.',
    auth: 'public',
    request: { params: signedLinkParams },
    responses: pageResponses,
    handler: async ({ params }) => ({
      status: 200,
      body: payoutsPage(await s.sellerMoneyPages.payouts(params.token)),
      contentType: 'text/html',
      headers: LINKED_PAGE_HEADERS,
    }),
  }),

  defineRoute<'sellerBillingPage', 'public'>({
    operationId: 'sellerBillingPage',
    method: 'get',
    path: '/simulator/billing/{token}',
    tag: 'Payment simulator',
    summary: "The seller's billing page: seller fees per order, refunds, reversals and the payment method on file",
    description: 'Opened through the signed, expiring `links.billing` of `GET /seller/dashboard`; the link is the credential.',
    auth: 'public',
    request: { params: signedLinkParams },
    responses: pageResponses,
    handler: async ({ params }) => ({
      status: 200,
      body: billingPage(await s.sellerMoneyPages.billing(params.token)),
      contentType: 'text/html',
      headers: LINKED_PAGE_HEADERS,
    }),
  }),
];

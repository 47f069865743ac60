import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { formatPence } from '../../src/domain/money/pence';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { launchBrowser } from '../support/browser';
import { acceptRefund, shipAndReceive } from '../support/money';
import { buy, sellerWithListings } from '../support/shop';
import { sellersModule } from '../../src/modules/sellers';
import { servicesOf } from '../../src/modules';

/**
 * The payment simulator's seller pages behind `GET /seller/dashboard`: opened only by their
 * signed, expiring links, and in a real browser (headless Chromium, JavaScript off) showing the
 * figures the seller finance API answers, with nothing loaded from elsewhere.
 */
let api: TestApi;
let browser: Browser;
beforeAll(async () => {
  api = await startTestApi();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api.close();
});

/** A link as the dashboard hands it out, rebased onto the test server (PUBLIC_BASE_URL is its address). */
const pathOf = (url: string) => new URL(url).pathname;

async function dashboard(seller: TestUser): Promise<{ payouts: string; billing: string; expiresAt: string }> {
  const res = await api.http.get('/seller/dashboard').set(seller.bearer).expect(200);
  return { ...res.body.links, expiresAt: res.body.expiresAt };
}

describe('dashboard links', () => {
  it('are signed and expiring; a bare seller id, an altered, expired or other-purpose link all answer 404', async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const links = await dashboard(seller);
    expect(links.payouts).toMatch(new RegExp(`^${api.baseUrl}/simulator/payouts/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    expect(links.billing).toMatch(new RegExp(`^${api.baseUrl}/simulator/billing/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    expect(links.payouts).not.toContain(seller.id);
    const lifetime = new Date(links.expiresAt).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);

    for (const url of [links.payouts, links.billing]) {
      const page = await api.http.get(pathOf(url)).expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.text).not.toMatch(/<script/i);
    }

    // What the placeholder links were: a seller id in the query opens nothing.
    await api.http.get(`/simulator/payouts?seller=${seller.id}`).expect(404);
    await api.http.get(`/simulator/billing?seller=${seller.id}`).expect(404);

    const [payload, signature] = pathOf(links.payouts).split('/').pop()!.split('.') as [string, string];
    const swapped = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(seller.id, other.id)).toString('base64url');
    const altered = await api.http.get(`/simulator/payouts/${swapped}.${signature}`).expect(404);
    expect(altered.body.type).toBe('/problems/simulator-link-invalid');
    await api.http.get(`/simulator/payouts/${payload}.${signature.slice(1)}x`).expect(404);
    // A link opens its own page only: the payouts token on the billing page, the billing portal's on either.
    await api.http.get(`/simulator/billing/${payload}.${signature}`).expect(404);
    const portal = (await api.http.post('/user/billing-portal').set(seller.bearer).expect(201)).body.url as string;
    const portalToken = pathOf(portal).split('/').pop()!;
    await api.http.get(`/simulator/payouts/${portalToken}`).expect(404);
    await api.http.get(`/simulator/billing/${portalToken}`).expect(404);
    await api.http.get(pathOf(portal)).expect(200);

    const expired = servicesOf(api.services, sellersModule).sellerDashboard.links(seller.id, new Date(Date.now() - 16 * 60_000)).links;
    await api.http.get(pathOf(expired.payouts)).expect(404);
    await api.http.get(pathOf(expired.billing)).expect(404);
    // Only a seller has these pages.
    const buyer = await registerUser(api);
    await api.http.get(pathOf(servicesOf(api.services, sellersModule).sellerDashboard.links(buyer.id).links.payouts)).expect(404);
  });
});

/** Docs pictures are refreshed on request only (UPDATE_DOC_SCREENSHOTS=1), so ordinary runs leave the tree clean. */
const screenshotPath = (name: string) =>
  process.env.UPDATE_DOC_SCREENSHOTS
    ? path.join(__dirname, '..', '..', 'docs', 'screenshots', `${name}.png`)
    : path.join(os.tmpdir(), `${name}-${process.pid}.png`);

/** Opens `url` with JavaScript off, recording every URL the page requests. */
async function open(url: string): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 900, height: 760 });
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  const res = await page.goto(url, { waitUntil: 'networkidle0' });
  expect(res?.status()).toBe(200);
  return { page, requested };
}

/** Each table row's cells (text), keyed by the row's `data-…` attribute. */
const rowsBy = (page: Page, attribute: string) =>
  page.$$eval(
    `tr[data-${attribute}]`,
    (rows, attr) =>
      rows.map((r) => [r.getAttribute(`data-${attr}`)!, [...r.querySelectorAll('td')].map((td) => td.textContent!.trim())] as const),
    attribute,
  );

describe('the payouts and billing pages in a real browser', () => {
  it("show the seller's balance, payouts, transfers, fees, refunds and reversals as the API answers them", async () => {
    const { seller, listingIds } = await sellerWithListings(api, [
      { quantity: 1, price: 2000 },
      { quantity: 1, price: 1000 },
      { quantity: 1, price: 1000 },
    ]);
    const buyer = await registerUser(api, 'pagesbuyer');
    // Order 1: 2000 + 150 delivery = 2150, fee 107 → 2043, released and paid out.
    const first = await buy(api, buyer, [listingIds[0]!]);
    await shipAndReceive(api, seller, buyer, first.id, first.orders[0]!.id);
    expect(await api.services.sellerMoney.releaseOrderFunds(first.orders[0]!.id)).toBe('released');
    const payoutId = (await api.services.sellerMoney.createPayout(seller.id, '2026-11-20'))!;
    await api.services.sellerMoney.markPayoutInTransit(payoutId);
    expect(await api.services.sellerMoney.settlePayout(payoutId)).toBe('PAID');
    // Order 2: 1150, fee 57 → 1093 released; then 500 refunded: 24 of fee back, 476 reversed from available.
    const second = await buy(api, buyer, [listingIds[1]!]);
    const secondOrder = second.orders[0]!.id;
    await shipAndReceive(api, seller, buyer, second.id, secondOrder);
    expect(await api.services.sellerMoney.releaseOrderFunds(secondOrder)).toBe('released');
    await acceptRefund(api, secondOrder, 500);
    // Order 3: paid, still pending (1093).
    await buy(api, buyer, [listingIds[2]!]);

    const balance = (await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body;
    expect(balance).toMatchObject({ available: 1093 - 476, pending: 1093 });
    const payouts = (await api.http.get('/seller/payouts').set(seller.bearer).expect(200)).body.payouts;
    expect(payouts).toEqual([{ id: payoutId, amount: 2043, currency: 'GBP', arrivalDate: '2026-11-22', status: 'PAID' }]);
    const transferPage = (await api.http.get('/seller/transfers').set(seller.bearer).expect(200)).body;
    expect(transferPage.nextCursor).toBeNull();
    const transfers = transferPage.items;
    expect(transfers.map((t: { type: string; amount: number }) => `${t.type} ${t.amount}`)).toEqual([
      'REVERSAL 476',
      'TRANSFER 1093',
      'TRANSFER 2043',
    ]);

    const links = await dashboard(seller);
    const payoutsPage = await open(`${api.baseUrl}${pathOf(links.payouts)}`);
    const { page } = payoutsPage;
    expect(await page.$eval('h1', (h) => h.textContent)).toBe(`Payouts for ${seller.username}`);
    expect(await page.$$eval('link[rel=stylesheet]', (l) => l.map((x) => x.getAttribute('href')))).toEqual(['/assets/pages.css']);
    expect(await page.$eval('main', (m) => m.ownerDocument.defaultView!.getComputedStyle(m).borderRadius)).toBe('12px');
    expect(await page.$eval('#available', (e) => e.textContent)).toBe(formatPence(balance.available));
    expect(await page.$eval('#pending', (e) => e.textContent)).toBe(formatPence(balance.pending));
    const nextPayout = await page.$eval('#next-payout', (e) => e.getAttribute('data-at'));
    const after = (await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body.nextPayoutDate;
    expect([balance.nextPayoutDate, after]).toContain(nextPayout); // the same run, unless a run came due in between
    expect(await rowsBy(page, 'payout')).toEqual(
      payouts.map((p: { id: string; status: string; arrivalDate: string; amount: number }) => [
        p.id,
        [p.status.toLowerCase(), p.arrivalDate, formatPence(p.amount)],
      ]),
    );
    expect(await rowsBy(page, 'transfer')).toEqual(
      transfers.map((t: { id: string; orderId: string; type: string; status: string; amount: number; availableOn: string }) => [
        t.id,
        [
          `…${t.orderId.slice(-8)}`,
          t.type.toLowerCase(),
          t.status.toLowerCase(),
          t.availableOn.slice(0, 10),
          t.type === 'REVERSAL' ? `−${formatPence(t.amount)}` : formatPence(t.amount),
        ],
      ]),
    );
    await page.screenshot({ path: screenshotPath('seller-payouts-page'), fullPage: true });
    expect(statSync(screenshotPath('seller-payouts-page')).size).toBeGreaterThan(10_000);
    expect(payoutsPage.requested.filter((r) => !r.startsWith(`${api.baseUrl}/`))).toEqual([]);
    await page.close();

    const billingPage = await open(`${api.baseUrl}${pathOf(links.billing)}`);
    const billing = billingPage.page;
    expect(await billing.$eval('h1', (h) => h.textContent)).toBe(`Billing for ${seller.username}`);
    // The ledger's seller-fee rows, newest first: three charged, one part given back.
    const fees = (await rowsBy(billing, 'order')).filter(([, cells]) => cells.length === 4);
    expect(fees.map(([, cells]) => `${cells[2]} ${cells[3]}`)).toEqual([
      'charged £0.57',
      'returned (refund) −£0.24',
      'charged £0.57',
      'charged £1.07',
    ]);
    expect(await billing.$eval('#net-fees', (e) => e.textContent)).toBe(formatPence(107 + 57 + 57 - 24));
    const tables = await billing.$$eval('table', (ts) =>
      ts.map((t) => [...t.querySelectorAll('tbody tr')].map((r) => r.textContent!.trim())),
    );
    expect(tables).toHaveLength(3); // fees, refunds, reversals: an empty list is a sentence, not a table
    expect(tables[1]).toEqual([expect.stringMatching(/case\s*partial\s*£5\.00$/)]);
    expect(tables[2]).toEqual([expect.stringMatching(/−£4\.76$/)]);
    // Taken from available, not lost: the platform carries nothing for this seller.
    expect(await billing.$eval('main', (m) => m.textContent)).toContain('No refund losses.');
    expect(await billing.$eval('#owed', (e) => e.textContent)).toBe('£0.00');
    expect(await billing.$eval('#payment-method', (e) => e.textContent)).toMatch(/^None on file\./);
    await billing.screenshot({ path: screenshotPath('seller-billing-page'), fullPage: true });
    expect(billingPage.requested.filter((r) => !r.startsWith(`${api.baseUrl}/`))).toEqual([]);
    expect([...payoutsPage.requested, ...billingPage.requested].filter((r) => r.endsWith('/assets/pages.css'))).toHaveLength(2);
    await billing.close();

    // A seller with an account at the simulated bank sees it as their payment method.
    await api.database.db.query(`INSERT INTO simulator_bank_accounts (seller_id, fails) VALUES ($1, true)`, [seller.id]);
    const again = await api.http.get(pathOf(links.billing)).expect(200);
    expect(again.text).toContain('Simulated bank account — set to refuse payouts (account closed).');
  });
});

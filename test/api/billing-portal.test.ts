import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { launchBrowser, openPage } from '../support/browser';
import { commitPaidCheckout } from '../support/purchases';

let api: TestApi;
let browser: Browser;
beforeAll(async () => {
  // The link must point at this test server, as PUBLIC_BASE_URL does in a deployment.
  api = await startTestApi();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await api.close();
});

/** The link as issued, rebased onto the test server's real port. */
const local = (url: string) => `${api.baseUrl}${new URL(url).pathname}`;

describe('billing portal', () => {
  it('opens from a signed link in a real browser, listing invoices and payment history', async () => {
    const buyer = await registerUser(api, 'billing');
    const seller = await registerSeller(api);
    await commitPaidCheckout(api.database.db, buyer.id, seller.id, 1250);
    await commitPaidCheckout(api.database.db, buyer.id, seller.id, 4999);

    const link = await api.http.post('/user/billing-portal').set(buyer.bearer).expect(201);
    expect(new Date(link.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);

    const { page, status } = await openPage(browser, local(link.body.url));
    expect(status).toBe(200);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe(`Billing for ${buyer.username}`);
    const rows = await page.$$eval('table', (tables) =>
      tables.map((t) => [...t.querySelectorAll('tbody tr')].map((r) => r.textContent ?? '')),
    );
    expect(rows).toHaveLength(2);
    const [invoices, payments] = rows as [string[], string[]];
    expect(invoices).toHaveLength(2);
    expect(invoices[0]).toMatch(/INV-\d{8}.*£49\.99$/);
    expect(invoices[1]).toMatch(/£12\.50$/);
    expect(payments.map((p) => p.replace(/.*(paid).*(£[\d.]+)$/, '$1 $2'))).toEqual(['paid £49.99', 'paid £12.50']);
    // The picture in docs/ is refreshed on request only, so ordinary runs leave the tree clean.
    const shot = process.env.UPDATE_DOC_SCREENSHOTS
      ? path.join(__dirname, '..', '..', 'docs', 'screenshots', 'billing-portal.png')
      : path.join(os.tmpdir(), `billing-portal-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    await page.close();
  });

  it("refuses an altered, forged or expired link, and shows nobody else's bills", async () => {
    const buyer = await registerUser(api);
    const link = (await api.http.post('/user/billing-portal').set(buyer.bearer).expect(201)).body.url as string;
    const path = new URL(link).pathname;
    const [payload, signature] = path.split('/').pop()!.split('.') as [string, string];

    const other = await registerUser(api);
    const swapped = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(buyer.id, other.id)).toString('base64url');
    const altered = await api.http.get(`/billing-portal/${swapped}.${signature}`).expect(404);
    expect(altered.body.type).toBe('/problems/billing-link-invalid');
    await api.http.get(`/billing-portal/${payload}.${signature.slice(1)}x`).expect(404);

    const expired = api.services.billingPortal.link(buyer.id, new Date(Date.now() - 16 * 60_000)).url;
    await api.http.get(new URL(expired).pathname).expect(404);
    const fine = await api.http.get(path).expect(200);
    expect(fine.headers['content-type']).toMatch(/text\/html/);
    expect(fine.headers['cache-control']).toBe('no-store');
    expect(fine.text).toContain('No invoices yet.');
  });
});

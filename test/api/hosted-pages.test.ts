import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { OAuthApps } from '../../src/services/auth/oauth-apps';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { launchBrowser } from '../support/browser';
import { fillBasket, sellerWithListings } from '../support/shop';

/**
 * The hosted pages in a real browser (headless Chromium) with JavaScript turned off: they
 * must look right with the service's own stylesheet, load nothing from elsewhere, and work as
 * plain forms — fill in, submit, land on the redirect.
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

/** A page without JavaScript that records every URL it requests. */
async function noScriptPage(): Promise<{ page: Page; requested: string[] }> {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 900, height: 760 });
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  return { page, requested };
}

/** Docs pictures are refreshed on request only (UPDATE_DOC_SCREENSHOTS=1), so ordinary runs leave the tree clean. */
const screenshotPath = (name: string) =>
  process.env.UPDATE_DOC_SCREENSHOTS
    ? path.join(__dirname, '..', '..', 'docs', 'screenshots', `${name}.png`)
    : path.join(os.tmpdir(), `${name}-${process.pid}.png`);

/** What the shared stylesheet does to a page, as the browser computed it. */
const looks = (page: Page) =>
  page.$eval('html', (html) => {
    const style = (selector: string) => html.ownerDocument.defaultView!.getComputedStyle(html.querySelector(selector)!);
    return {
      stylesheets: [...html.ownerDocument.styleSheets].map((s) => s.href),
      mainBorderRadius: style('main').borderRadius,
      buttonMinHeight: style('button').minHeight,
      font: style('body').fontFamily,
      lang: html.getAttribute('lang'),
    };
  });

describe('hosted pages in a real browser', () => {
  it("the stylesheet is the service's own and names nothing outside it", async () => {
    const res = await api.http.get('/assets/pages.css').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/css/);
    expect(res.text).toContain(':focus-visible');
    expect(res.text).not.toMatch(/@import|url\(|https?:/);
  });

  it('payment page: styled, no scripts, Pay lands on the success URL with the purchase', async () => {
    const { listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 1250 }]);
    const buyer = await registerUser(api, 'browserbuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
    const successUrl = `${api.baseUrl}/healthz?from=checkout`;
    const checkout = await api.http.post(`/basket/${basketId}/checkout`).set(buyer.bearer).send({ successUrl }).expect(201);

    const { page, requested } = await noScriptPage();
    const opened = await page.goto(checkout.body.url, { waitUntil: 'networkidle0' });
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()['content-security-policy']).toContain("style-src 'self'");
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Payment simulator');
    expect(await looks(page)).toEqual({
      stylesheets: [`${api.baseUrl}/assets/pages.css`],
      mainBorderRadius: '12px',
      buttonMinHeight: '44px',
      font: expect.stringContaining('system-ui'),
      lang: 'en',
    });
    const amount = await page.$eval('.amount', (e) => e.textContent ?? '');
    expect(amount).toMatch(/^£\d+\.\d\d$/);
    expect(await page.$eval('button[value=success]', (b) => b.textContent)).toBe(`Pay ${amount}`);
    await page.screenshot({ path: screenshotPath('payment-page'), fullPage: true });

    const [landed] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[value=success]')]);
    expect(landed?.status()).toBe(200);
    const url = new URL(page.url());
    expect(`${url.origin}${url.pathname}`).toBe(`${api.baseUrl}/healthz`);
    expect(url.searchParams.get('from')).toBe('checkout');
    expect(url.searchParams.get('purchase')).toMatch(/^[0-9a-f-]{36}$/);
    const purchase = await api.http
      .get(`/user/purchases/${url.searchParams.get('purchase')}`)
      .set(buyer.bearer)
      .expect(200);
    expect(purchase.body.status).toBe('PAID');
    // Everything the page loaded came from the service.
    expect(requested.filter((r) => !r.startsWith(api.baseUrl))).toEqual([]);
    await page.close();
  });

  it('authorization page: a wrong password shows the error, then Allow lands on the redirect URI with code, state and iss', async () => {
    const redirectUri = `${api.baseUrl}/healthz`;
    const app = await new OAuthApps(api.database.db).register({ name: 'Deck Builder', redirectUris: [redirectUri], confidential: true });
    const user = await registerUser(api, 'browserlink');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.client.id,
      redirect_uri: redirectUri,
      state: 'st-42',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const { page, requested } = await noScriptPage();
    await page.goto(`${api.baseUrl}/oauth/authorize?${query}`, { waitUntil: 'networkidle0' });
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Link Deck Builder to your account');
    expect((await looks(page)).stylesheets).toEqual([`${api.baseUrl}/assets/pages.css`]);
    // Every visible field has a label a screen reader announces.
    const labels = await page.$$eval('input:not([type=hidden])', (inputs) =>
      inputs.map((i) => i.ownerDocument.querySelector(`label[for="${i.id}"]`)?.textContent?.trim()),
    );
    expect(labels).toEqual(['Username or e-mail', 'Password']);
    await page.screenshot({ path: screenshotPath('authorization-page'), fullPage: true });

    await page.type('#username', user.username);
    await page.type('#password', 'not the password');
    await Promise.all([page.waitForNavigation(), page.click('button[value=allow]')]);
    expect(await page.$eval('[role=alert]', (e) => e.textContent)).toBe('The username or password is incorrect.');
    await page.screenshot({ path: screenshotPath('authorization-page-error'), fullPage: true });

    await page.type('#username', user.username);
    await page.type('#password', user.password);
    await Promise.all([page.waitForNavigation(), page.click('button[value=allow]')]);
    const url = new URL(page.url());
    expect(`${url.origin}${url.pathname}`).toBe(redirectUri);
    expect(url.searchParams.get('code')).toMatch(/^mts_ac_/);
    expect(url.searchParams.get('state')).toBe('st-42');
    expect(url.searchParams.get('iss')).toBe(api.baseUrl);
    expect(requested.filter((r) => !r.startsWith(api.baseUrl))).toEqual([]);
    await page.close();
  });
});

/**
 * Swagger UI parses the whole document (about 1.1 MB) in the page before it draws an operation:
 * about 12 s on this 2-core host under a full test run's load, past 45 s when other work shares
 * it. So the test waits for what it needs (the operation drawn), not for an idle network, and
 * gives the browser a budget of its own.
 */
const SWAGGER_RENDER_MS = 90_000;

describe("Swagger UI's Try it out", () => {
  it(
    'Execute on POST /listings/item with the pre-filled example answers 200',
    async () => {
      const page = await browser.newPage();
      await page.setViewport({ width: 1200, height: 900 });
      await page.goto(`${api.baseUrl}/docs#/Discover/searchItemListings`, { waitUntil: 'domcontentloaded' });
      const operation = '#operations-Discover-searchItemListings';
      await page.waitForSelector(`${operation} .try-out__btn`, { timeout: SWAGGER_RENDER_MS });
      await page.click(`${operation} .try-out__btn`);
      const body = await page.$eval(`${operation} textarea.body-param__text`, (t) => (t as unknown as { value: string }).value);
      expect(JSON.parse(body)).toMatchObject({ urn: 'pokemon/base/base1/4' });
      await page.click(`${operation} .execute`);
      await page.waitForSelector(`${operation} .live-responses-table tbody .response-col_status`, { timeout: 20_000 });
      const status = await page.$eval(`${operation} .live-responses-table tbody .response-col_status`, (e) => e.textContent?.trim());
      expect(status).toBe('200');
      await page.close();
    },
    SWAGGER_RENDER_MS + 30_000,
  );
});

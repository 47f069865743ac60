import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { OAuthApps } from '../../src/services/auth/oauth-apps';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { authorizeCode, pkce } from '../support/oauth';
import { launchBrowser } from '../support/browser';

/**
 * A single-page application in a real browser (headless Chromium), served from another origin
 * than the API: with its origin on CORS_ALLOWED_ORIGINS, its scripts exchange a public client's
 * code at /oauth/token and call the API with the token; from an origin not on the list, the
 * browser refuses them the answers.
 */
let api: TestApi;
let browser: Browser;
let allowedSite: Site;
let otherSite: Site;

interface Site {
  origin: string;
  server: Server;
}

/** A tiny page on its own port, i.e. its own origin. */
async function startSite(): Promise<Site> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deck Builder</title></head><body>SPA</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return { origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

beforeAll(async () => {
  [allowedSite, otherSite] = await Promise.all([startSite(), startSite()]);
  api = await startTestApi({ env: { CORS_ALLOWED_ORIGINS: allowedSite.origin } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  for (const site of [allowedSite, otherSite]) if (site) await new Promise<void>((resolve) => site.server.close(() => resolve()));
  await api?.close();
});

async function open(site: Site): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${site.origin}/`, { waitUntil: 'load' });
  return page;
}

/** A public application, and an authorization code for a user with its PKCE verifier (the sign-in happens off-page). */
async function authorizationCode(redirectUri: string) {
  const user = await registerUser(api, 'spa');
  const app = await new OAuthApps(api.database.db).register({ name: 'Deck Builder', redirectUris: [redirectUri], confidential: false });
  const { verifier, challenge } = pkce();
  const code = await authorizeCode(api, user, app.client.id, redirectUri, challenge);
  return { user, clientId: app.client.id, code, verifier };
}

describe('CORS in a real browser', () => {
  it('an allow-listed single-page app exchanges its code at /oauth/token and calls the API with the token', async () => {
    const redirectUri = `${allowedSite.origin}/callback`;
    const { clientId, code, verifier } = await authorizationCode(redirectUri);
    const page = await open(allowedSite);
    const seen = await page.evaluate(
      async (apiBase, grant) => {
        // Form-encoded, as RFC 6749 has it: a "simple" request, no preflight.
        const tokenRes = await fetch(`${apiBase}/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({ grant_type: 'authorization_code', ...grant }),
        });
        const token = (await tokenRes.json()) as { access_token: string; token_type: string };
        // `Authorization` makes these preflighted.
        const auth = { Authorization: `Bearer ${token.access_token}` };
        const basketRes = await fetch(`${apiBase}/basket`, { headers: { ...auth, 'X-Request-Id': 'spa-basket-1' } });
        const basket = (await basketRes.json()) as { id: string; lines: unknown[] };
        // An error is readable as well: account management is for first-party tokens only.
        const accountRes = await fetch(`${apiBase}/user/account`, { headers: auth });
        return {
          token: { status: tokenRes.status, type: token.token_type, hasAccessToken: typeof token.access_token === 'string' },
          basket: { status: basketRes.status, id: basket.id, lines: basket.lines, requestId: basketRes.headers.get('X-Request-Id') },
          account: { status: accountRes.status, body: (await accountRes.json()) as { type: string } },
        };
      },
      api.baseUrl,
      { code, code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId },
    );
    expect(seen.token).toEqual({ status: 200, type: 'Bearer', hasAccessToken: true });
    expect(seen.basket).toEqual({ status: 200, id: expect.any(String), lines: [], requestId: 'spa-basket-1' });
    expect(seen.account.status).toBe(403);
    expect(seen.account.body.type).toBe('/problems/bearer-token-required');
    await page.close();
  });

  it('a page on an origin not on the list gets nothing: fetch rejects with TypeError', async () => {
    const user = await registerUser(api, 'spaother');
    const page = await open(otherSite);
    const outcomes = await page.evaluate(
      async (apiBase, bearer) => {
        const attempt = async (request: Promise<Response>) => {
          try {
            return `answered ${(await request).status}`;
          } catch (err) {
            return (err as Error).name;
          }
        };
        return {
          simple: await attempt(fetch(`${apiBase}/healthz`)),
          token: await attempt(fetch(`${apiBase}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password' }) })),
          preflighted: await attempt(fetch(`${apiBase}/user/account`, { headers: { Authorization: bearer } })),
        };
      },
      api.baseUrl,
      user.bearer.Authorization,
    );
    expect(outcomes).toEqual({ simple: 'TypeError', token: 'TypeError', preflighted: 'TypeError' });
    await page.close();
  });
});

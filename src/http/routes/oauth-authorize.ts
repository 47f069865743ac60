import Joi from '../../joi';
import { DomainError } from '../../services/errors';
import { AuthorizationRequestError, type AuthorizationParams, type AuthorizationRequest } from '../../services/auth/oauth-apps';
import { escapeHtml, htmlPage, PAGE_HEADERS } from '../pages';
import { defineRoute } from '../route';
import type { AuthService } from '../../services/auth/auth-service';
import type { OAuthApps } from '../../services/auth/oauth-apps';
import type { OAuthTokens } from '../../services/auth/oauth-tokens';

const PARAM_NAMES = ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method', 'scope'] as const;

/** The authorization request's parameters: shape only; their meaning is checked by OAuthApps. */
const authorizationParams = {
  response_type: Joi.string().max(32),
  client_id: Joi.string().max(128),
  redirect_uri: Joi.string().max(2048),
  state: Joi.string().max(1024),
  code_challenge: Joi.string().max(128),
  code_challenge_method: Joi.string().max(16),
  scope: Joi.string().max(512),
};

/**
 * Beyond every hosted page's headers (no framing: clickjacking of the Allow button), the page
 * must not be cached, or leak the query (which carries `state`) through the Referer.
 */
const AUTHORIZE_HEADERS = {
  ...PAGE_HEADERS,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

function consentPage(request: AuthorizationRequest, params: AuthorizationParams, error?: string): string {
  const hidden = PARAM_NAMES.filter((name) => params[name] !== undefined)
    .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params[name]!)}">`)
    .join('\n');
  const name = escapeHtml(request.client.name);
  return htmlPage(
    `Link ${request.client.name} to your account`,
    `<p><strong>${name}</strong> asks to act on your marketplace account: search, buy, sell and manage orders as you.</p>
<p class="muted">It cannot manage your personal access tokens, e-mail address or linked applications. You can unlink it at any time.</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/oauth/authorize">
${hidden}
<label for="username">Username or e-mail<input id="username" name="username" autocomplete="username"></label>
<label for="password">Password<input id="password" name="password" type="password" autocomplete="current-password"></label>
<div class="actions"><button name="decision" value="allow">Allow</button>
<button class="secondary" name="decision" value="deny">Deny</button></div>
</form>`,
    { noindex: true },
  );
}

/**
 * Sends the outcome back to the application (RFC 6749 §4.1.2): `code` or `error`, with `state`,
 * and `iss` (RFC 9207) so an application talking to several servers can tell which one answered.
 */
function redirectBack(issuer: string, redirectUri: string, fields: Record<string, string | undefined>) {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries({ ...fields, iss: issuer })) if (value !== undefined) url.searchParams.set(key, value);
  return { status: 303 as const, headers: { Location: url.toString(), 'Cache-Control': 'no-store' } };
}

/** An invalid request: to the application when its redirect URI is trusted, otherwise shown to the user. */
function refuse(issuer: string, err: unknown) {
  if (!(err instanceof AuthorizationRequestError)) throw err;
  if (err.redirect)
    return redirectBack(issuer, err.redirect.redirectUri, { error: err.error, error_description: err.message, state: err.redirect.state });
  return {
    status: 400 as const,
    body: htmlPage('This link request cannot be completed', `<p role="alert">${escapeHtml(err.message)}</p>`, { noindex: true }),
    contentType: 'text/html',
    headers: AUTHORIZE_HEADERS,
  };
}

const pickParams = (source: AuthorizationParams): AuthorizationParams =>
  Object.fromEntries(PARAM_NAMES.filter((n) => source[n] !== undefined).map((n) => [n, source[n]]));

/**
 * The authorization endpoint of the code flow (docs/auth.md, Third-party applications): a hosted
 * page where the user signs in and allows or denies an operator-registered application.
 * Posting the form needs the user's password, so a forged cross-site post cannot link anything.
 */
/** The authorization request the consent form's examples carry (RFC 6749 §4.1.1 with PKCE S256). */
const AUTHORIZATION_EXAMPLE = {
  response_type: 'code',
  client_id: 'mts_app_0190a1b2c3d47e5f8a9b0c1d2e3f4a5b',
  redirect_uri: 'https://deckbuilder.example/callback',
  state: 'af0ifjsldkj',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
};

/** The services these routes use (their feature module's, src/modules). */
export interface OAuthAuthorizeRouteServices {
  auth: AuthService;
  oauthApps: OAuthApps;
  oauthTokens: OAuthTokens;
}

export const oauthAuthorizeRoutes = (s: OAuthAuthorizeRouteServices) => [
  defineRoute<'authorizePage', 'public'>({
    operationId: 'authorizePage',
    method: 'get',
    path: '/oauth/authorize',
    tag: 'Auth',
    summary: 'Authorization page for a third-party application (code flow with PKCE)',
    description:
      'RFC 6749 §4.1.1 with RFC 7636: `response_type=code`, `client_id`, `redirect_uri` (optional when the application registered one), ' +
      '`state`, `code_challenge` and `code_challenge_method=S256` (both required). `scope` is accepted and ignored: a linked application acts as the user. ' +
      'An unknown application or redirect URI is shown as a 400 page; other errors redirect to the application with `error`.',
    auth: 'public',
    // RFC 6749 §3.1: unrecognised request parameters are ignored, not refused.
    request: { query: Joi.object(authorizationParams).unknown(true) },
    responses: {
      200: { description: 'The sign-in and consent page.', contentType: 'text/html' },
      303: { description: 'The request is invalid: back to the application with `error` and `state`.' },
      400: { description: 'Unknown application or redirect URI (never redirected).', contentType: 'text/html' },
    },
    handler: async ({ query }) => {
      try {
        const request = await s.oauthApps.checkAuthorizationRequest(query);
        return { status: 200, body: consentPage(request, query), contentType: 'text/html', headers: AUTHORIZE_HEADERS };
      } catch (err) {
        return refuse(s.oauthTokens.issuer, err);
      }
    },
  }),

  defineRoute<'authorize', 'public'>({
    operationId: 'authorize',
    method: 'post',
    path: '/oauth/authorize',
    tag: 'Auth',
    summary: 'Allow or deny a third-party application',
    description:
      'The consent form. `decision=allow` with the right credentials answers 303 to the redirect URI with a single-use `code` (valid 5 minutes) and `state`; ' +
      '`deny` answers 303 with `error=access_denied`. Wrong credentials show the page again with an error.',
    auth: 'public',
    request: {
      bodyTypes: ['form'],
      body: Joi.object({
        ...authorizationParams,
        username: Joi.string().max(254),
        password: Joi.string().max(256),
        decision: Joi.string().valid('allow', 'deny').required(),
      })
        .example({ ...AUTHORIZATION_EXAMPLE, username: 'collector', password: 'correct horse battery', decision: 'allow' })
        .example({ ...AUTHORIZATION_EXAMPLE, decision: 'deny' }),
    },
    responses: {
      200: { description: 'Wrong username or password: the page again, with an error.', contentType: 'text/html' },
      303: { description: 'Back to the application with `code` or `error`, and `state`.' },
      400: { description: 'Unknown application or redirect URI (never redirected).', contentType: 'text/html' },
      429: { description: 'Too many failed sign-ins for this account name: the page again, with `Retry-After`.', contentType: 'text/html' },
    },
    handler: async ({ body }) => {
      const params = pickParams(body);
      let request: AuthorizationRequest;
      try {
        request = await s.oauthApps.checkAuthorizationRequest(params);
      } catch (err) {
        return refuse(s.oauthTokens.issuer, err);
      }
      if (body.decision === 'deny') {
        return redirectBack(s.oauthTokens.issuer, request.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied the request.',
          state: request.state,
        });
      }
      let userId: string | null;
      try {
        userId = body.username && body.password ? await s.auth.checkCredentials(body.username, body.password) : null;
      } catch (err) {
        if (!(err instanceof DomainError && err.kind === 'rate-limited')) throw err;
        const headers = { ...AUTHORIZE_HEADERS, 'Retry-After': String(err.extensions.retryAfter) };
        return { status: 429, body: consentPage(request, params, err.message), contentType: 'text/html', headers };
      }
      if (!userId) {
        return {
          status: 200,
          body: consentPage(request, params, 'The username or password is incorrect.'),
          contentType: 'text/html',
          headers: AUTHORIZE_HEADERS,
        };
      }
      return redirectBack(s.oauthTokens.issuer, request.redirectUri, {
        code: await s.oauthApps.issueCode(request, userId),
        state: request.state,
      });
    },
  }),
];

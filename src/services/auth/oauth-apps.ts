import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { prepared, queryPrepared } from '../../db/prepared';
import { newId } from '../../ids';
import { conflict, DomainError, invalid, notFound } from '../errors';
import { pageOf, type Page } from '../paging';
import { recordOperatorAction, type AuditSubject, type OperatorAction } from '../operators/audit';
import { constantTimeEqual, constantTimeEqualHex, hashSecret, newSecret } from './secrets';

/** Authorization codes are exchanged by the application's back end at once; RFC 6749 §4.1.2 allows at most 10 min. */
const CODE_TTL_SECONDS = 300;

/** RFC 7636 §4.1: 43–128 unreserved characters (also the shape of an S256 challenge, which is 43). */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** Asked on every request an application's access token makes (see `PreparedStatement`). */
const HONOURED = prepared(
  'oauth-token-honoured',
  `SELECT 1 FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
    WHERE g.user_id = $1 AND g.client_id = $2 AND c.disabled_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM oauth_revoked_access_tokens r WHERE r.jti = $3)
      AND NOT EXISTS (SELECT 1 FROM oauth_revoked_sessions s WHERE s.family_id = $4)`,
);

export interface OAuthClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** Confidential clients authenticate with a secret at the token endpoint; public ones rely on PKCE alone. */
  confidential: boolean;
}

/** The query of `GET /oauth/authorize` (and the hidden fields of its form), unvalidated. */
export interface AuthorizationParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  scope?: string;
}

/** A request that passed every check: what the consent page shows and the code is bound to. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  /** Whether the request named `redirect_uri` (RFC 6749 §4.1.3: the token request must then too). */
  redirectUriGiven: boolean;
  state: string | undefined;
  codeChallenge: string;
}

/**
 * RFC 6749 §4.1.2.1: without a known client and one of its registered redirect URIs, the error
 * is shown to the user and never sent anywhere; every other error goes back to the application
 * as a redirect carrying `error`.
 */
export class AuthorizationRequestError extends Error {
  constructor(
    readonly error: string,
    message: string,
    /** Where to send the error; absent when the redirect URI itself cannot be trusted. */
    readonly redirect?: { redirectUri: string; state: string | undefined },
  ) {
    super(message);
    this.name = 'AuthorizationRequestError';
  }
}

export interface RedeemedCode {
  userId: string;
  clientId: string;
  familyId: string;
}

/** An application as the operator sees it (CLI and `/operator/oauth-apps`): never its secret or the secret's hash. */
export interface OAuthAppView extends OAuthClient {
  createdAt: Date;
  /** Set while the operator keeps it disabled: its tokens and codes are refused. */
  disabledAt: Date | null;
  linkedUsers: number;
}

/** The subject type of operator actions on applications in `operator_audit_log`. */
export const OAUTH_APP_SUBJECT = 'oauth-app' satisfies AuditSubject;

export interface LinkedApplication {
  clientId: string;
  name: string;
  linkedAt: Date;
}

/** RFC 6749 §5.2 errors; the token, revocation and introspection endpoints answer them as `{error, error_description}`. */
export const invalidGrant = (message: string) =>
  new DomainError('invalid', 'invalid-grant', message, { error: 'invalid_grant', error_description: message });
export const invalidClient = () =>
  new DomainError('unauthenticated', 'invalid-client', 'Unknown or disabled application, or wrong client credentials.', {
    error: 'invalid_client',
    error_description: 'Client authentication failed.',
  });

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

interface ClientRow {
  id: string;
  name: string;
  redirect_uris: string[];
  secret_hash: string | null;
}

const toClient = (r: ClientRow): OAuthClient => ({
  id: r.id,
  name: r.name,
  redirectUris: r.redirect_uris,
  confidential: r.secret_hash !== null,
});

/** Reads `secret_hash` only to say whether the application is confidential; it never leaves `toView`. */
const APP_VIEW = `SELECT c.id, c.name, c.redirect_uris, c.secret_hash, c.created_at, c.disabled_at,
         (SELECT count(*)::int FROM oauth_grants g WHERE g.client_id = c.id) AS linked_users
    FROM oauth_clients c`;

type AppRow = ClientRow & { created_at: Date; disabled_at: Date | null; linked_users: number };

const toView = (r: AppRow): OAuthAppView => ({
  ...toClient(r),
  createdAt: r.created_at,
  disabledAt: r.disabled_at,
  linkedUsers: r.linked_users,
});

/**
 * Third-party applications: registered by the operator, linked by users
 * through the authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636, OAuth 2.0 Security
 * BCP). A link is one grant per (user, application); the tokens it yields act for the user.
 */
export class OAuthApps {
  constructor(private readonly db: DataSource) {}

  /**
   * Operator registration (`npm run oauth:apps -- register`, `POST /operator/oauth-apps`). The
   * secret is returned once and stored hashed (SHA-256). With `by`, the registration is audited
   * in the same transaction; the CLI has no operator identity and records none.
   */
  async register(
    input: { name: string; redirectUris: string[]; confidential: boolean },
    by?: OperatorAction,
  ): Promise<{ client: OAuthAppView; clientSecret: string | null }> {
    input.redirectUris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri);
      if (problem) {
        throw invalid('validation-failed', problem, [{ in: 'body', field: `redirectUris.${i}`, message: problem }]);
      }
    });
    const id = `mts_app_${newId().replace(/-/g, '')}`;
    const clientSecret = input.confidential ? newSecret('mts_cs_') : null;
    await this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO oauth_clients (id, name, secret_hash, redirect_uris) VALUES ($1, $2, $3, $4)`, [
        id,
        input.name,
        clientSecret ? hashSecret(clientSecret) : null,
        input.redirectUris,
      ]);
      if (by) {
        await recordOperatorAction(tx, by, {
          action: 'oauth-app.register',
          subjectType: OAUTH_APP_SUBJECT,
          subjectId: id,
          detail: { name: input.name, redirectUris: input.redirectUris, confidential: input.confidential },
        });
      }
    });
    return { client: await this.get(id), clientSecret };
  }

  /** Operator listing, newest first, with how many users linked each; every application without `page`. */
  async list(q?: { page: number; size: number }): Promise<OAuthAppView[]> {
    const rows: AppRow[] = await this.db.query(
      `${APP_VIEW} ORDER BY c.created_at DESC, c.id DESC${q ? ' LIMIT $1 OFFSET $2' : ''}`,
      q ? [q.size, (q.page - 1) * q.size] : [],
    );
    return rows.map(toView);
  }

  /** One page of the operator listing, newest first, with how many applications there are. */
  async page(q: { page: number; size: number }): Promise<Page<OAuthAppView>> {
    const [items, [{ total }]]: [OAuthAppView[], [{ total: number }]] = await Promise.all([
      this.list(q),
      this.db.query(`SELECT count(*)::int AS total FROM oauth_clients`),
    ]);
    return pageOf(items, total, q);
  }

  async get(clientId: string): Promise<OAuthAppView> {
    const [row]: AppRow[] = await this.db.query(`${APP_VIEW} WHERE c.id = $1`, [clientId]);
    if (!row) throw notFound('Application');
    return toView(row);
  }

  /**
   * Operator switch: a disabled application's tokens and codes are refused at once (`isHonoured`,
   * `isLinked` and client authentication all require it enabled); links stay for re-enabling.
   * Switching to the state it is already in is 409 and changes nothing (nor is it audited).
   */
  async setDisabled(clientId: string, disabled: boolean, by?: OperatorAction): Promise<OAuthAppView> {
    await this.db.transaction(async (tx) => {
      const [, changed]: [unknown, number] = await tx.query(
        `UPDATE oauth_clients SET disabled_at = CASE WHEN $2 THEN now() END WHERE id = $1 AND (disabled_at IS NOT NULL) <> $2`,
        [clientId, disabled],
      );
      if (changed === 0) {
        await this.get(clientId); // 404 when there is no such application
        throw disabled
          ? conflict('oauth-app-disabled', 'The application is already disabled.')
          : conflict('oauth-app-enabled', 'The application is not disabled.');
      }
      if (by) {
        await recordOperatorAction(tx, by, {
          action: disabled ? 'oauth-app.disable' : 'oauth-app.enable',
          subjectType: OAUTH_APP_SUBJECT,
          subjectId: clientId,
        });
      }
    });
    return this.get(clientId);
  }

  /**
   * A new client secret, returned once and stored hashed. The old secret stops working when this
   * commits: there is no grace period, so the application must switch to the new one at once.
   * Tokens already issued stay valid (they are the users' links, not the secret), but refreshing
   * them needs the new secret. A public application has none: 409 `oauth-app-public`.
   */
  async rotateSecret(clientId: string, by?: OperatorAction): Promise<{ client: OAuthAppView; clientSecret: string }> {
    const clientSecret = newSecret('mts_cs_');
    await this.db.transaction(async (tx) => {
      const [, changed]: [unknown, number] = await tx.query(
        `UPDATE oauth_clients SET secret_hash = $2 WHERE id = $1 AND secret_hash IS NOT NULL`,
        [clientId, hashSecret(clientSecret)],
      );
      if (changed === 0) {
        await this.get(clientId); // 404 when there is no such application
        throw conflict('oauth-app-public', 'A public application has no client secret to rotate.');
      }
      if (by) {
        await recordOperatorAction(tx, by, { action: 'oauth-app.rotate-secret', subjectType: OAUTH_APP_SUBJECT, subjectId: clientId });
      }
    });
    return { client: await this.get(clientId), clientSecret };
  }

  /** Every check of an authorization request, in the order RFC 6749 §4.1.2.1 needs them. */
  async checkAuthorizationRequest(p: AuthorizationParams): Promise<AuthorizationRequest> {
    const client = p.client_id ? await this.enabledClient(p.client_id) : null;
    if (!client) throw new AuthorizationRequestError('invalid_client', 'This application is not registered, or has been disabled.');
    const redirectUri = p.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
      throw new AuthorizationRequestError('invalid_request', 'The redirect_uri is missing or is not one this application registered.');
    }
    const redirect = { redirectUri, state: p.state };
    if (p.response_type !== 'code') {
      throw new AuthorizationRequestError('unsupported_response_type', 'Only response_type=code is supported.', redirect);
    }
    if (!p.code_challenge || !PKCE_VALUE.test(p.code_challenge)) {
      throw new AuthorizationRequestError('invalid_request', 'A PKCE code_challenge (RFC 7636) is required.', redirect);
    }
    if (p.code_challenge_method !== 'S256') {
      throw new AuthorizationRequestError('invalid_request', 'code_challenge_method must be S256.', redirect);
    }
    return { client, redirectUri, redirectUriGiven: p.redirect_uri !== undefined, state: p.state, codeChallenge: p.code_challenge };
  }

  /** The user approved: a single-use code bound to the client, redirect URI and PKCE challenge. */
  async issueCode(request: AuthorizationRequest, userId: string): Promise<string> {
    const code = newSecret('mts_ac_');
    await this.db.query(
      `INSERT INTO oauth_authorization_codes (code_hash, client_id, user_id, redirect_uri, redirect_uri_given, code_challenge, family_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
      [
        hashSecret(code),
        request.client.id,
        userId,
        request.redirectUri,
        request.redirectUriGiven,
        request.codeChallenge,
        newId(),
        CODE_TTL_SECONDS,
      ],
    );
    return code;
  }

  /**
   * Client authentication at the token endpoint: a confidential client must present its secret,
   * a public client must not claim one.
   */
  async authenticateClient(clientId: string | undefined, clientSecret: string | undefined): Promise<OAuthClient> {
    const row = clientId ? await this.enabledClientRow(clientId) : null;
    if (!row) throw invalidClient();
    if (
      row.secret_hash === null
        ? clientSecret !== undefined
        : !clientSecret || !constantTimeEqualHex(hashSecret(clientSecret), row.secret_hash)
    ) {
      throw invalidClient();
    }
    return toClient(row);
  }

  /**
   * Spends a code (one conditional UPDATE, so it works once even under concurrent exchanges),
   * checks its bindings and links the application. A replayed code revokes the tokens its first
   * exchange issued (RFC 6749 §4.1.2). Linking again replaces the previous link's tokens: one
   * refreshable token per linked user.
   */
  async redeemCode(input: { code: string; client: OAuthClient; redirectUri?: string; codeVerifier: string }): Promise<RedeemedCode> {
    const codeHash = hashSecret(input.code);
    const [spent]: Array<{
      client_id: string;
      user_id: string;
      redirect_uri: string;
      redirect_uri_given: boolean;
      code_challenge: string;
      family_id: string;
    }> = (
      await this.db.query(
        `UPDATE oauth_authorization_codes SET used_at = now()
          WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
          RETURNING client_id, user_id, redirect_uri, redirect_uri_given, code_challenge, family_id`,
        [codeHash],
      )
    )[0];
    if (!spent) {
      await this.revokeFirstExchange(codeHash);
      throw invalidGrant('The authorization code is invalid, expired or already used.');
    }
    if (spent.client_id !== input.client.id) throw invalidGrant('The authorization code was issued to another application.');
    // RFC 6749 §4.1.3: a redirect_uri the authorization request named must be named again, and
    // one sent must match (PKCE binds the code to its requester as well; this is the RFC's own rule).
    if (spent.redirect_uri_given && input.redirectUri === undefined) {
      throw invalidGrant('redirect_uri is required: the authorization request included one.');
    }
    if (input.redirectUri !== undefined && input.redirectUri !== spent.redirect_uri) {
      throw invalidGrant('redirect_uri does not match the authorization request.');
    }
    if (!PKCE_VALUE.test(input.codeVerifier) || !constantTimeEqual(s256(input.codeVerifier), spent.code_challenge)) {
      throw invalidGrant('The code_verifier does not match the code_challenge.');
    }
    await this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO oauth_grants (user_id, client_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        spent.user_id,
        spent.client_id,
      ]);
      await tx.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL`, [
        spent.user_id,
        spent.client_id,
      ]);
    });
    return { userId: spent.user_id, clientId: spent.client_id, familyId: spent.family_id };
  }

  /**
   * RFC 6749 §4.1.2: a code presented again (a spent one; an unknown or expired code changes
   * nothing) revokes every token its first exchange issued. Its refresh tokens are revoked, and
   * its session (the family, every access token's `sid`) goes on the revocation list until the
   * last token the family could have issued has expired: the family's access tokens are refused
   * from the next request on, whatever their `jti`. One transaction, so neither half is lost.
   */
  private async revokeFirstExchange(codeHash: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [code]: Array<{ family_id: string }> = await tx.query(
        `SELECT family_id FROM oauth_authorization_codes WHERE code_hash = $1 AND used_at IS NOT NULL`,
        [codeHash],
      );
      if (!code) return;
      await tx.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`, [code.family_id]);
      await tx.query(`DELETE FROM oauth_revoked_sessions WHERE expires_at < now()`);
      // Kept until the family's last refresh token would have expired, plus a day for the access
      // tokens issued from it (they live minutes). The list holds replays only, so it stays short.
      await tx.query(
        `INSERT INTO oauth_revoked_sessions (family_id, expires_at)
         SELECT $1::uuid, greatest(now(), (SELECT max(expires_at) FROM refresh_tokens WHERE family_id = $1)) + interval '1 day'
         ON CONFLICT (family_id) DO UPDATE SET expires_at = greatest(oauth_revoked_sessions.expires_at, EXCLUDED.expires_at)`,
        [code.family_id],
      );
    });
  }

  /**
   * Whether an application's access token is still honoured: the user keeps the application
   * linked, the operator keeps it enabled, the token itself was not revoked (RFC 7009), and its
   * session was not revoked by a replayed authorization code (RFC 6749 §4.1.2).
   */
  async isHonoured(userId: string, clientId: string, jti: string, sessionId: string | null | undefined): Promise<boolean> {
    return (await queryPrepared(this.db, HONOURED, [userId, clientId, jti, sessionId ?? null])).length > 0;
  }

  /** Whether tokens for (user, application) may still be issued: linked, and the application enabled. */
  async isLinked(userId: string, clientId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
        WHERE g.user_id = $1 AND g.client_id = $2 AND c.disabled_at IS NULL`,
      [userId, clientId],
    );
    return rows.length > 0;
  }

  async linked(userId: string): Promise<LinkedApplication[]> {
    const rows: Array<{ client_id: string; name: string; created_at: Date }> = await this.db.query(
      `SELECT g.client_id, c.name, g.created_at FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
        WHERE g.user_id = $1 ORDER BY g.created_at, g.client_id`,
      [userId],
    );
    return rows.map((r) => ({ clientId: r.client_id, name: r.name, linkedAt: r.created_at }));
  }

  /** Unlinks at once: the grant, its refresh tokens and any unspent codes go in one transaction. */
  async unlink(userId: string, clientId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [, removed]: [unknown, number] = await tx.query(`DELETE FROM oauth_grants WHERE user_id = $1 AND client_id = $2`, [
        userId,
        clientId,
      ]);
      if (removed === 0) throw notFound('Linked application');
      await tx.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL`, [
        userId,
        clientId,
      ]);
      await tx.query(`DELETE FROM oauth_authorization_codes WHERE user_id = $1 AND client_id = $2`, [userId, clientId]);
    });
  }

  private async enabledClient(clientId: string): Promise<OAuthClient | null> {
    const row = await this.enabledClientRow(clientId);
    return row ? toClient(row) : null;
  }

  private async enabledClientRow(clientId: string): Promise<ClientRow | null> {
    const rows: ClientRow[] = await this.db.query(
      `SELECT id, name, redirect_uris, secret_hash FROM oauth_clients WHERE id = $1 AND disabled_at IS NULL`,
      [clientId],
    );
    return rows[0] ?? null;
  }
}

/**
 * The one rule for registered redirect URIs (the CLI and `POST /operator/oauth-apps` both use it):
 * they are compared exactly (Security BCP §4.1.3), so they must be absolute, without a fragment
 * (RFC 6749 §3.1.2), and https except for loopback development callbacks. Null when acceptable.
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `redirect URI ${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `redirect URI ${uri} must not have a fragment`;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    return `redirect URI ${uri} must use https (http only for localhost)`;
  }
  return null;
}

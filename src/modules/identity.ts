import { authRoutes } from '../http/routes/auth';
import { linkedApplicationRoutes } from '../http/routes/linked-applications';
import { oauthAuthorizeRoutes } from '../http/routes/oauth-authorize';
import { oauthServerRoutes } from '../http/routes/oauth-server';
import { personalAccessTokenRoutes } from '../http/routes/personal-access-tokens';
import { AuthService } from '../services/auth/auth-service';
import type { OAuthApps } from '../services/auth/oauth-apps';
import { OAuthTokens } from '../services/auth/oauth-tokens';
import { SignInThrottle } from '../services/auth/sign-in-throttle';
import { PersonalAccessTokens } from '../services/personal-access-tokens';
import type { FeatureModule } from './feature-module';

/** What the identity routes use. */
export interface IdentityServices {
  auth: AuthService;
  oauthTokens: OAuthTokens;
  pats: PersonalAccessTokens;
  oauthApps: OAuthApps;
}

/**
 * Who the caller is (docs/auth.md): registration and sign-in, the OAuth 2.0 authorization server
 * (token endpoint, authorization page, discovery, revocation, introspection), the applications a
 * user linked and personal access tokens. The authenticator that checks every request and the
 * application registry stay shared: the router and the operators' routes use them too.
 */
export const identityModule: FeatureModule<IdentityServices> = {
  name: 'identity',
  tags: {
    Auth: 'Registration, the OAuth 2.0 authorization server (token, authorization page, discovery, revocation, introspection). See docs/auth.md.',
    'Linked applications':
      'Third-party applications the caller linked through the authorization code flow; unlinking takes effect at once.',
    'Personal access tokens': 'Long-lived tokens for automation, sent as `Authorization: ApiKey <token>`; shown once, at most 5 active.',
  },
  api: {
    services: ({ config, db, shared }) => ({
      auth: new AuthService(
        db,
        shared.accessTokens,
        shared.oauthApps,
        new SignInThrottle(db, { maxFailures: config.auth.signInMaxFailures, lockSeconds: config.auth.signInLockSeconds }),
        { refreshTokenTtlSeconds: config.auth.refreshTokenTtlSeconds, scryptLogN: config.auth.scryptLogN },
      ),
      oauthTokens: new OAuthTokens(db, shared.accessTokens, shared.oauthApps),
      pats: new PersonalAccessTokens(db),
      oauthApps: shared.oauthApps,
    }),
    routes: (services) => [
      ...authRoutes(services),
      ...oauthAuthorizeRoutes(services),
      ...oauthServerRoutes(services),
      ...linkedApplicationRoutes(services),
      ...personalAccessTokenRoutes(services),
    ],
  },
};

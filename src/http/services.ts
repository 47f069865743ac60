import type { DataSource } from 'typeorm';
import type { AuthService } from '../services/auth/auth-service';
import type { Authenticator } from '../services/auth/authenticator';
import type { CatalogHierarchy } from '../services/catalog/hierarchy';
import type { EmailChange } from '../services/email-change';
import type { PersonalAccessTokens } from '../services/personal-access-tokens';
import type { Profiles } from '../services/profiles/profiles';
import type { Sellers } from '../services/sellers';

/** What route handlers may use; built once in `src/composition.ts`. */
export interface Services {
  db: DataSource;
  auth: AuthService;
  authenticator: Authenticator;
  pats: PersonalAccessTokens;
  sellers: Sellers;
  emailChange: EmailChange;
  catalogTree: CatalogHierarchy;
  profiles: Profiles;
  /** Resolves when Temporal answers; rejects otherwise (for /readyz). */
  temporalHealth: () => Promise<void>;
}

import type { DataSource } from 'typeorm';
import type { AuthService } from '../services/auth/auth-service';
import type { Authenticator } from '../services/auth/authenticator';
import type { CatalogHierarchy } from '../services/catalog/hierarchy';
import type { EmailChange } from '../services/email-change';
import type { PersonalAccessTokens } from '../services/personal-access-tokens';
import type { Profiles } from '../services/profiles/profiles';
import type { Sellers } from '../services/sellers';
import type { SellerListings } from '../services/listings/seller-listings';
import type { SellerDashboard } from '../services/sellers/dashboard';
import type { DeliveryOptions } from '../services/sellers/delivery-options';
import type { SellerStatsService } from '../services/sellers/seller-stats';
import type { Uploads } from '../services/uploads';
import type { ListingImports } from '../services/imports/listing-imports';

/** What route handlers may use; built once in `src/composition.ts`. */
export interface Services {
  db: DataSource;
  auth: AuthService;
  authenticator: Authenticator;
  pats: PersonalAccessTokens;
  sellers: Sellers;
  emailChange: EmailChange;
  listings: SellerListings;
  sellerStats: SellerStatsService;
  sellerDashboard: SellerDashboard;
  deliveryOptions: DeliveryOptions;
  uploads: Uploads;
  imports: ListingImports;
  catalogTree: CatalogHierarchy;
  profiles: Profiles;
  /** Resolves when Temporal answers; rejects otherwise (for /readyz). */
  temporalHealth: () => Promise<void>;
}

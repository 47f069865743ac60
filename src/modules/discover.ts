import { catalogTreeRoutes } from '../http/routes/catalog-tree';
import { discoverRoutes } from '../http/routes/discover';
import { listingSearchRoutes } from '../http/routes/listing-search';
import { profileRoutes } from '../http/routes/profiles';
import { CatalogHierarchy } from '../services/catalog/hierarchy';
import { priceHistory, type PricePoint } from '../services/catalog/price-history';
import { Profiles } from '../services/profiles/profiles';
import type { BulkLookup } from '../services/search/bulk-lookup';
import type { CatalogSearch } from '../services/search/catalog-search';
import type { ListingSearch } from '../services/search/listing-search';
import type { FeatureModule } from './feature-module';

/** What the public browsing routes use. */
export interface DiscoverServices {
  bulkLookup: BulkLookup;
  catalogSearch: CatalogSearch;
  listingSearch: ListingSearch;
  catalogTree: CatalogHierarchy;
  profiles: Profiles;
  /** Daily sale prices of an item; 404 for an unknown item. */
  priceHistory: (urn: string, days: number) => Promise<PricePoint[]>;
}

/**
 * Public catalog browsing (docs/discover.md): catalog search and item pages, the catalog tree,
 * listing search, price history and public profiles. The searches' caches and the change listener
 * that keeps them fresh are shared: saved searches run the same searches, and seller listings
 * share the item cache.
 */
export const discoverModule: FeatureModule<DiscoverServices> = {
  name: 'discover',
  tags: {
    Discover: 'Public catalog browsing: search, item pages, listing search, price history, profiles.',
  },
  api: {
    // Public reads that tolerate a replica's bounded lag (docs/replicas.md).
    services: ({ reads, shared }) => ({
      bulkLookup: shared.bulkLookup,
      catalogSearch: shared.catalogSearch,
      listingSearch: shared.listingSearch,
      catalogTree: new CatalogHierarchy(reads.lagging),
      profiles: new Profiles(reads.lagging),
      priceHistory: (urn, days) => priceHistory(reads.lagging, urn, days),
    }),
    routes: (services) => [
      ...discoverRoutes(services),
      ...catalogTreeRoutes(services),
      ...listingSearchRoutes(services),
      ...profileRoutes(services),
    ],
  },
};

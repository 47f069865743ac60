import { createImportActivities } from '../../activities/imports';
import { createUploadActivities } from '../../activities/uploads';
import { LocalDiskImageStorage } from '../integrations/images/storage';
import { sellerImportRoutes } from '../http/routes/seller-imports';
import { sellerListingRoutes } from '../http/routes/seller-listings';
import { uploadRoutes } from '../http/routes/uploads';
import { ListingImportRuns } from '../services/imports/import-runs';
import { IMPORT_SEARCH_ATTRIBUTES } from '../domain/imports/search-attributes';
import { ListingImports, type ListingImportStart } from '../services/imports/listing-imports';
import type { SellerListings } from '../services/listings/seller-listings';
import { UploadCollector } from '../services/retention/upload-collector';
import type { Uploads } from '../services/uploads';
import { keyword } from '../services/workflow-starts/start';
import { ensureUploadCollectorSchedule } from '../temporal/upload-collector-schedule';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the seller listing, upload and import routes use. */
export interface ListingsServices {
  listings: SellerListings;
  uploads: Uploads;
  imports: ListingImports;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const listingsWorkflowIds = {
  import: (importId: string) => `import:${importId}`,
};

/** One run per import, found by its seller too (search attribute). */
export const listingImportStart: ListingImportStart = (importId, sellerId) =>
  start(
    'listingImportWorkflow',
    listingsWorkflowIds.import(importId),
    { importId },
    {
      summary: `CSV listing import ${importId} of seller ${sellerId}`,
      searchAttributes: [keyword(IMPORT_SEARCH_ATTRIBUTES.sellerId, sellerId)],
    },
  );

/**
 * A seller's listings (docs/seller-listings.md): creating and editing them, image uploads, and
 * CSV imports run by the `import:{importId}` workflow in batches; in the worker, the
 * `upload-collector` Schedule that deletes uploads nothing shows. The listing service itself is
 * shared: it is built on Discover's caches and change listener, which the composition root owns,
 * and uploads are attached by cases, shipments, messages and avatars too.
 */
export const listingsModule: FeatureModule<ListingsServices> = {
  name: 'listings',
  tags: {
    'Seller listings': "A seller's listings: creation (one or in bulk), updates, images, visibility.",
    Uploads: 'Image uploads: create an upload, PUT the bytes, then attach it by id.',
    'Seller imports': 'Bulk listing import from a CSV upload, processed in the background.',
  },
  api: {
    services: ({ config, db, shared }) => ({
      listings: shared.listings,
      uploads: shared.uploads,
      imports: new ListingImports(db, listingImportStart, { maxRows: config.imports.maxRows }),
    }),
    routes: (services, config) => [
      ...sellerListingRoutes(services),
      ...uploadRoutes(services),
      ...sellerImportRoutes(services, config.imports),
    ],
  },
  worker: {
    activities: ({ config, db }) => ({
      ...createImportActivities({ importRuns: new ListingImportRuns(db, config.imports.batchSize) }),
      ...createUploadActivities({ uploadCollector: new UploadCollector(db, new LocalDiskImageStorage(config.uploads.dir)) }),
    }),
    schedules: ({ config, temporal }) =>
      ensureUploadCollectorSchedule(temporal, {
        taskQueue: config.temporal.taskQueue,
        everyMs: config.uploads.collectEveryMs,
        olderThanMs: config.uploads.collectAfterMs,
      }),
  },
};

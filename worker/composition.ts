import type { DataSource } from 'typeorm';
import { createActivities, type ActivityDeps } from '../activities';
import { classifyFailures } from '../activities/failures';
import type { Config } from '../src/config';
import { orderTimings, shipmentTracking } from '../src/composition';
import { createMailTransport } from '../src/integrations/email/transport';
import { EmailChangeCodes } from '../src/services/email/email-change-codes';
import { EmailDelivery } from '../src/services/email/outbox';
import { ListingImportRuns } from '../src/services/imports/import-runs';
import { SellerMoney } from '../src/services/money/seller-money';
import { OutboxRetention } from '../src/services/retention/outbox-retention';
import { UploadCollector } from '../src/services/retention/upload-collector';
import { LocalDiskImageStorage } from '../src/integrations/images/storage';
import { WebhookDeliveryAttempts } from '../src/services/webhooks/delivery-attempts';
import { moduleActivities } from '../src/modules';

/**
 * The worker's composition root, like `src/composition.ts` for the API: builds the services the
 * activities adapt, from configuration and the database, and the activities over them.
 */
export function createWorkerActivities(config: Config, db: DataSource) {
  return { ...createActivities(activityDependencies(config, db)), ...classifyFailures(moduleActivities({ config, db })) };
}

function activityDependencies(config: Config, db: DataSource): ActivityDeps {
  return {
    db,
    reviewWindowSeconds: config.reviews.windowSeconds,
    orderTimings: orderTimings(config),
    shipmentTracking: shipmentTracking(config, db),
    emailChangeCodes: new EmailChangeCodes(db, { codeKey: config.auth.jwtSecret, codeTtlSeconds: config.emailChange.codeTtlSeconds }),
    emailDelivery: new EmailDelivery(db, createMailTransport(config.email.smtpUrl), config.email.from),
    webhookAttempts: new WebhookDeliveryAttempts(db, config.webhooks),
    importRuns: new ListingImportRuns(db, config.imports.batchSize),
    sellerMoney: new SellerMoney(db, config.money),
    outboxRetention: new OutboxRetention(db),
    uploadCollector: new UploadCollector(db, new LocalDiskImageStorage(config.uploads.dir)),
  };
}

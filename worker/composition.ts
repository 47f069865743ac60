import type { DataSource } from 'typeorm';
import { createEmailActivities } from '../activities/email';
import { classifyFailures } from '../activities/failures';
import { createRetentionActivities } from '../activities/retention';
import type { Config } from '../src/config';
import { createMailTransport } from '../src/integrations/email/transport';
import { EmailChangeCodes } from '../src/services/email/email-change-codes';
import { EmailDelivery } from '../src/services/email/outbox';
import { OutboxRetention } from '../src/services/retention/outbox-retention';
import { moduleActivities } from '../src/modules';

/**
 * The worker's composition root, like `src/composition.ts` for the API: the activities every
 * feature module declares (src/modules), and the shared ones that belong to no single feature:
 * e-mail (delivery serves the case, conversation, alert digest and e-mail workflows; the e-mail
 * change code shares its transport) and the outbox retention. Failures no retry can fix are made
 * non-retryable (activities/failures.ts).
 */
export function createWorkerActivities(config: Config, db: DataSource) {
  return classifyFailures({
    ...createEmailActivities({
      emailChangeCodes: new EmailChangeCodes(db, { codeKey: config.auth.jwtSecret, codeTtlSeconds: config.emailChange.codeTtlSeconds }),
      emailDelivery: new EmailDelivery(db, createMailTransport(config.email.smtpUrl), config.email.from),
    }),
    ...createRetentionActivities({ outboxRetention: new OutboxRetention(db) }),
    ...moduleActivities({ config, db }),
  });
}

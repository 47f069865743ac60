import { createEmailActivities } from '../../activities/email';
import { createMailTransport } from '../integrations/email/transport';
import { EmailChangeCodes } from '../services/email/email-change-codes';
import { EmailDelivery } from '../services/email/outbox';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const emailWorkflowIds = {
  delivery: (messageId: string) => `email:${messageId}`,
};

/**
 * The delivery of one message an action queued in the e-mail outbox, requested in that action's
 * transaction (an order's cancellation, an offer's move): the order actions' and the offers'
 * starts carry it.
 */
export const emailDeliveryStart = (messageId: string) =>
  start('emailDeliveryWorkflow', emailWorkflowIds.delivery(messageId), { messageId }, { summary: `Delivery of e-mail ${messageId}` });

/**
 * E-mail, which many features send and none owns: in the worker, the `email:{messageId}`
 * workflow's delivery (also run by the case, conversation and alert digest workflows) and the
 * e-mail change code, sent over the one configured transport. No routes: a feature queues its
 * messages in the outbox and requests their delivery with `emailDeliveryStart`.
 */
export const emailModule: FeatureModule<object> = {
  name: 'email',
  worker: {
    activities: ({ config, db }) => ({
      ...createEmailActivities({
        emailChangeCodes: new EmailChangeCodes(db, { codeKey: config.auth.jwtSecret, codeTtlSeconds: config.emailChange.codeTtlSeconds }),
        emailDelivery: new EmailDelivery(db, createMailTransport(config.email.smtpUrl), config.email.from),
      }),
    }),
  },
};

import { addressLookupProvider } from '../integrations/address-lookup';
import { accountRoutes } from '../http/routes/account';
import { addressRoutes } from '../http/routes/addresses';
import { Accounts } from '../services/account/account';
import { AccountStatsService } from '../services/account/account-stats';
import { SavedAddresses } from '../services/account/addresses';
import type { BillingPortal } from '../services/account/billing-portal';
import { EmailChange, type EmailChangeStart } from '../services/email-change';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the account routes use. */
export interface AccountServices {
  accounts: Accounts;
  accountStats: AccountStatsService;
  emailChange: EmailChange;
  addresses: SavedAddresses;
  billingPortal: BillingPortal;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const accountWorkflowIds = {
  emailChange: (requestId: string) => `email-change:${requestId}`,
};

/** One code per e-mail change request. */
export const emailChangeStart: EmailChangeStart = (requestId) =>
  start(
    'emailChangeWorkflow',
    accountWorkflowIds.emailChange(requestId),
    { requestId },
    { summary: `Verification code for e-mail change request ${requestId}` },
  );

/**
 * The caller's account (docs/account.md): details and avatar, statistics, e-mail change with a
 * verification code (the `email-change:{requestId}` workflow; its code is issued by the shared
 * e-mail activities), the billing portal's link, saved addresses and assisted address lookup.
 */
export const accountModule: FeatureModule<AccountServices> = {
  name: 'account',
  tags: {
    Account: "The caller's account: details, e-mail change with a verification code, stats, billing portal. See docs/account.md.",
    Addresses: 'Saved delivery addresses and assisted address lookup. See docs/account.md.',
  },
  api: {
    services: ({ config, db, shared }) => ({
      accounts: new Accounts(db, shared.uploads, { scryptLogN: config.auth.scryptLogN }),
      accountStats: new AccountStatsService(db, (userId) => shared.conversations.unreadTotal(userId)),
      emailChange: new EmailChange(db, emailChangeStart, {
        codeTtlSeconds: config.emailChange.codeTtlSeconds,
        maxAttempts: config.emailChange.maxAttempts,
        codeKey: config.auth.jwtSecret,
      }),
      addresses: new SavedAddresses(db, addressLookupProvider(config.addressLookup), {
        retrieveTtlSeconds: config.addressLookup.retrieveTtlSeconds,
      }),
      billingPortal: shared.billingPortal,
    }),
    routes: (services) => [...accountRoutes(services), ...addressRoutes(services)],
  },
};

import { createCheckoutActivities } from '../../activities/checkout';
import { basketRoutes } from '../http/routes/basket';
import { invoiceRoutes } from '../http/routes/invoices';
import { paymentSimulatorRoutes } from '../http/routes/payment-simulator';
import { purchaseRoutes } from '../http/routes/purchases';
import type { BillingPortal } from '../services/account/billing-portal';
import type { Baskets } from '../services/basket/baskets';
import { Checkouts } from '../services/checkout/checkouts';
import { Invoices } from '../services/orders/invoices';
import { Purchases } from '../services/orders/purchases';
import { ensureCheckoutExpirySchedule } from '../temporal/checkout-expiry-schedule';
import type { FeatureModule } from './feature-module';
import { offerChangeStarts } from './offers';
import { periodsOf } from './timings';

/** What the basket, payment simulator, purchase and invoice routes use. */
export interface CheckoutServices {
  baskets: Baskets;
  checkouts: Checkouts;
  billingPortal: BillingPortal;
  purchases: Purchases;
  invoices: Invoices;
}

/**
 * Buying (docs/checkout-orders.md): the basket, checkout into the hosted payment simulator, the
 * buyer's purchases and invoices; in the worker, the `checkout-expiry` Schedule that releases the
 * stock of unpaid checkouts. Baskets are shared (the wants optimizer fills them), and so are order
 * actions (`orderUpdates`: the buyer's receipt here, the seller's and the worker's elsewhere).
 */
export const checkoutModule: FeatureModule<CheckoutServices> = {
  name: 'checkout',
  tags: {
    Basket: "The buyer's basket and checkout into the hosted payment page.",
    'Payment simulator': 'The hosted payment page that stands in for a payment provider in development and tests.',
    Purchases: 'Orders bought: receipt, disputes, invoices.',
  },
  api: {
    services: ({ config, db, shared }) => ({
      baskets: shared.baskets,
      checkouts: new Checkouts(
        db,
        shared.baskets,
        {
          holdSeconds: config.checkout.holdSeconds,
          publicBaseUrl: config.publicBaseUrl,
          sellerFeeBps: config.money.sellerFeeBps,
        },
        offerChangeStarts,
      ),
      billingPortal: shared.billingPortal,
      purchases: new Purchases(db, shared.orderUpdates, periodsOf(config)),
      invoices: new Invoices(db),
    }),
    routes: (services) => [
      ...basketRoutes(services),
      ...paymentSimulatorRoutes(services),
      ...purchaseRoutes(services),
      ...invoiceRoutes(services),
    ],
  },
  worker: {
    activities: ({ db }) => ({ ...createCheckoutActivities({ db }) }),
    schedules: ({ config, temporal }) =>
      ensureCheckoutExpirySchedule(temporal, { taskQueue: config.temporal.taskQueue, everyMs: config.checkout.expirySweepMs }),
  },
};

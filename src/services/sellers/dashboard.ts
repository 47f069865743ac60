import type { SignedLinks } from '../auth/signed-links';

/** Links a seller's dashboard shows: where to see payouts and billing, and until when they open. */
export interface DashboardLinks {
  links: { payouts: string; billing: string };
  expiresAt: Date;
}

/**
 * Dashboard links of the payment provider. With the built-in payment simulator they are the
 * local pages `/simulator/payouts/{token}` and `/simulator/billing/{token}` of this API's public
 * base URL: they show the seller's money, so each is a signed, expiring link (the billing
 * portal's rule, `SignedLinks`), never a bare seller id. A real provider adapter returns its
 * hosted, short-lived portal URLs behind the same method.
 */
export class SellerDashboard {
  constructor(
    private readonly signedLinks: SignedLinks,
    private readonly publicBaseUrl: string,
  ) {}

  links(sellerId: string, now = new Date()): DashboardLinks {
    const payouts = this.signedLinks.issue('simulator-payouts', sellerId, now);
    const billing = this.signedLinks.issue('simulator-billing', sellerId, now);
    return {
      links: {
        payouts: `${this.publicBaseUrl}/simulator/payouts/${payouts.token}`,
        billing: `${this.publicBaseUrl}/simulator/billing/${billing.token}`,
      },
      expiresAt: payouts.expiresAt,
    };
  }
}

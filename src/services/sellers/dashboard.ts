/** Links a seller's dashboard shows: where to see payouts and manage billing. */
export interface DashboardLinks {
  payouts: string;
  billing: string;
}

/**
 * Dashboard links of the payment provider. With the built-in payment simulator they are local
 * pages under `/simulator/*` of this API's public base URL; a real provider adapter returns its
 * hosted (short-lived) portal URLs behind the same method.
 */
export class SellerDashboard {
  constructor(private readonly publicBaseUrl: string) {}

  links(sellerId: string): DashboardLinks {
    const seller = encodeURIComponent(sellerId);
    return {
      payouts: `${this.publicBaseUrl}/simulator/payouts?seller=${seller}`,
      billing: `${this.publicBaseUrl}/simulator/billing?seller=${seller}`,
    };
  }
}

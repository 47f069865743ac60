import type { OfferChange, OfferEngine, OfferOutcome } from '../src/services/offers/offer-engine';

export type { OfferChange, OfferOutcome };

export interface OfferActivities {
  /** The offer as stored (ending it when its listing no longer supports it). */
  reviewOffer(change: OfferChange): Promise<OfferOutcome>;
  /** A party's move (`change.action`); a refusal is answered, not thrown. */
  applyOfferAction(change: OfferChange): Promise<OfferOutcome>;
  expireOffer(change: OfferChange): Promise<OfferOutcome>;
  lapseOffer(change: OfferChange): Promise<OfferOutcome>;
}

export function createOfferActivities({ engine }: { engine: OfferEngine }): OfferActivities {
  return {
    reviewOffer: (change) => engine.review(change),
    applyOfferAction: (change) => engine.act(change),
    expireOffer: (change) => engine.expire(change),
    lapseOffer: (change) => engine.lapse(change),
  };
}

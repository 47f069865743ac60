import { cheapestItems, type ItemFlow } from './cheapest-items';
import type { PreparedBasket } from './prepare';

/**
 * A basket within maxSellers, found without the solver: sellers are taken one at a time, each
 * time the one that can add the most still-missing units (ties: cheaper delivery), then the
 * cheapest items among the chosen sellers fill the lines. It is the MIP's start, so a basket is
 * returned whenever one exists even if the solver finds nothing better in time; when it already
 * fills everything stock allows, the fill phase needs no solver at all.
 */
export function greedySellers(prep: PreparedBasket, maxSellers: number): ItemFlow {
  const { groups, groupsOfSeller, usefulSellers, delivery } = prep;
  const missing = Int32Array.from(prep.quantity);
  const chosen = new Uint8Array(delivery.length);
  for (let k = 0; k < maxSellers; k += 1) {
    let best = -1;
    let bestGain = 0;
    for (const s of usefulSellers) {
      if (chosen[s] === 1) continue;
      let gain = 0;
      for (const g of groupsOfSeller[s]!) gain += Math.min(missing[groups[g]!.line]!, groups[g]!.cap);
      if (gain > bestGain || (gain === bestGain && gain > 0 && delivery[s]! < delivery[best]!)) {
        best = s;
        bestGain = gain;
      }
    }
    if (best === -1) break;
    chosen[best] = 1;
    for (const g of groupsOfSeller[best]!) {
      const line = groups[g]!.line;
      missing[line] = missing[line]! - Math.min(missing[line]!, groups[g]!.cap);
    }
  }
  return cheapestItems(prep, prep.quantity, chosen);
}

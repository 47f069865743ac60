import { columnsFromUnits, measure, openSellers, type UnitsBasket } from './basket-units';
import { cheapestItems, type ItemFlow } from './cheapest-items';
import { greedySellers } from './greedy-sellers';
import { buildMip } from './mip-model';
import { runMip } from './run-mip';
import { account, buildTimed, secondsLeft, type SolveContext } from './solve-context';

/**
 * Share of the time left that the fill MIP may use when maxSellers binds: the cost phase needs
 * the rest to improve the basket and prove its bound.
 */
const FILL_PHASE_SHARE = 0.5;

/**
 * Phase 1: the most units that can be placed, and a first basket that places them.
 *
 * Without a binding seller limit that is the max flow over lines × listings, solved exactly in
 * JavaScript (`unlimited`, whose cheapest items come as a by-product). With one it is a
 * max-coverage problem: a greedy choice of sellers first and, only if that falls short of the
 * unlimited maximum, a MIP that maximises units, started from the greedy basket so that a basket
 * is returned whenever one exists. `proven` is false only if that MIP ran out of time first.
 */
export function fillPhase(ctx: SolveContext, unlimited: ItemFlow): { basket: UnitsBasket; proven: boolean } {
  const { highs, prep, maxSellers, stats } = ctx;
  if (maxSellers === undefined || unlimited.filled === 0) return { basket: measure(prep, unlimited.units), proven: true };
  const greedy = measure(prep, greedySellers(prep, maxSellers).units);
  if (greedy.filled === unlimited.filled) return { basket: greedy, proven: true };

  let basket = greedy;
  const fill = buildTimed(stats, () => buildMip(highs, prep, { objective: 'fill', maxSellers }));
  const outcome = runMip(
    highs,
    fill,
    secondsLeft(ctx) * FILL_PHASE_SHARE,
    columnsFromUnits(prep, fill.sellerCol, fill.data.numCols, greedy.units),
  );
  account(stats, outcome);
  stats.fillMip = true;
  if (outcome.values) {
    const found = measure(prep, cheapestItems(prep, prep.quantity, openSellers(prep, fill.sellerCol, outcome.values)).units);
    if (found.filled > basket.filled) basket = found;
  }
  // Units are whole: a bound below the next unit proves this fill is the most possible.
  return { basket, proven: outcome.optimal || Math.floor(outcome.bound + 1e-6) <= basket.filled };
}

import { performance } from 'node:perf_hooks';
import { better, columnsFromUnits, measure, openSellers, type UnitsBasket } from './basket-units';
import { cheapestItems } from './cheapest-items';
import { improveSellers } from './local-search';
import { buildMip, restrictSellers } from './mip-model';
import type { PreparedBasket } from './prepare';
import { runLp, runMip, type MipOutcome } from './run-mip';
import { account, buildTimed, secondsLeft, type SolveContext } from './solve-context';

/** Share of the time left that the local search may use before the solver starts from its basket. */
const LOCAL_SEARCH_SHARE = 0.2;

/** Share of the time left for the LP relaxation (it usually needs far less). */
const LP_SHARE = 0.3;

/**
 * Share of the time left for the MIP restricted to the LP's sellers (hard baskets only), and the
 * gap at which it stops: it is there to find a basket, the full MIP proves.
 */
const NEIGHBOURHOOD_SHARE = 0.25;
const NEIGHBOURHOOD_GAP = 0.01;

/**
 * Sellers the LP relaxation opens fractionally from which a basket counts as hard: market
 * baskets of 200 lines leave at most a dozen, set-cover ones of 200 lines a hundred
 * (bench/results/optimizer.md). Below it the full MIP alone is faster: set covers of 40–60
 * lines (25–29 fractional) took 1.5–2× as long with the neighbourhood run first.
 */
const HARD_FRACTIONAL_SELLERS = 30;

/** Share of the time limit one polish of a solver incumbent may take (the solver waits meanwhile). */
const POLISH_SHARE = 0.01;

/**
 * Phase 2: the cheapest basket that fills at least as many units as `start` does.
 *
 * A local search improves the start first. Then the LP relaxation, which tells easy baskets from
 * hard ones: on market baskets it opens a few dozen sellers, only a handful fractionally, and the
 * full MIP finishes in well under a second. Set-cover baskets (many small overlapping sellers)
 * leave a hundred sellers fractional; there the solver's own heuristics find good baskets only
 * after seconds of root work, so the MIP restricted to the sellers the LP opens at all (and the
 * start's) is searched first, as the solver's RENS heuristic would but earlier, and the local
 * search polishes every basket the solver finds. `bound` is the best proven lower bound (the
 * LP's, the full MIP's), rounded up to whole pence.
 */
export function costPhase(ctx: SolveContext, start: UnitsBasket): { basket: UnitsBasket; optimal: boolean; bound: number } {
  const { highs, prep, maxSellers, deadline, stats } = ctx;
  let basket = start;

  const searchStarted = performance.now();
  const open = improveSellers(
    prep,
    basket.lineFill,
    basket.units,
    maxSellers,
    searchStarted + LOCAL_SEARCH_SHARE * (deadline - searchStarted),
  );
  const improved = measure(prep, cheapestItems(prep, basket.lineFill, open).units);
  if (better(improved, basket)) basket = improved;
  stats.searchMs = performance.now() - searchStarted;
  stats.startTotal = basket.total;

  const rule = fillRule(prep, basket.filled);
  const cost = buildTimed(stats, () => buildMip(highs, prep, { objective: 'cost', ...rule, maxSellers }));
  const lineCap = rule.exactLines ?? prep.quantity;
  const columns = (b: UnitsBasket) => columnsFromUnits(prep, cost.sellerCol, cost.data.numCols, b.units);
  /** The basket of a solver solution: its sellers, with units re-derived by the exact flow. */
  const fromSolver = (values: Float64Array) => measure(prep, cheapestItems(prep, lineCap, openSellers(prep, cost.sellerCol, values)).units);

  // The local search run again from each basket the solver finds (see runMip's `polish`).
  let polished: UnitsBasket | null = null;
  const polish = (incumbent: Float64Array): Float64Array | null => {
    const polishStarted = performance.now();
    if (polishStarted > deadline) return null;
    const found = fromSolver(incumbent);
    const sellers = improveSellers(
      prep,
      found.lineFill,
      found.units,
      maxSellers,
      Math.min(deadline, polishStarted + POLISH_SHARE * ctx.timeLimitMs),
    );
    const improvedFound = measure(prep, cheapestItems(prep, found.lineFill, sellers).units);
    const best = better(improvedFound, found) ? improvedFound : found;
    stats.polishMs += performance.now() - polishStarted;
    if (polished && !better(best, polished)) return null;
    polished = best;
    let objective = 0;
    for (let c = 0; c < incumbent.length; c += 1) objective += cost.data.colCost[c]! * incumbent[c]!;
    return best.total < objective - 1e-6 ? columns(best) : null;
  };
  const keep = (outcome: MipOutcome) => {
    account(stats, outcome);
    if (outcome.values) {
      const found = fromSolver(outcome.values);
      if (better(found, basket)) basket = found;
    }
    if (polished && better(polished, basket)) basket = polished;
  };

  let bound = -Infinity;
  let optimal = false;
  let hard = false;
  const lpStarted = performance.now();
  const lp = runLp(highs, cost, secondsLeft(ctx) * LP_SHARE);
  stats.lpMs = performance.now() - lpStarted;
  if (lp) {
    bound = roundUp(lp.objective);
    const allowed = openSellers(prep, cost.sellerCol, columns(basket));
    let fractional = 0;
    for (const s of prep.usefulSellers) {
      const y = lp.values[cost.sellerCol[s]!]!;
      if (y > 1e-6) allowed[s] = 1;
      if (y > 1e-6 && y < 1 - 1e-6) fractional += 1;
    }
    hard = fractional >= HARD_FRACTIONAL_SELLERS;
    stats.hard = hard;
    stats.lpFractional = fractional;
    if (hard) {
      keep(
        runMip(highs, restrictSellers(cost, allowed), secondsLeft(ctx) * NEIGHBOURHOOD_SHARE, columns(basket), polish, NEIGHBOURHOOD_GAP),
      );
      stats.neighbourhoodTotal = basket.total;
    }
    // Proven already when the basket costs no more than the LP's bound.
    optimal = basket.total <= bound;
  }
  if (!optimal) {
    const outcome = runMip(highs, cost, secondsLeft(ctx), columns(basket), hard ? polish : undefined);
    keep(outcome);
    stats.costMip = true;
    optimal = outcome.optimal;
    if (Number.isFinite(outcome.bound)) bound = Math.max(bound, roundUp(outcome.bound));
  }
  return { basket, optimal, bound };
}

/**
 * How the cost phase keeps the fill. When the fill equals what every line can take from its own
 * listings, each line's fill is forced and equality rows say so (a smaller, tighter model);
 * otherwise lines stay "at most their quantity" and one row keeps the total.
 */
function fillRule(prep: PreparedBasket, filled: number): { exactLines?: Int32Array; minFill?: number } {
  const lineMax = Int32Array.from(prep.quantity, (q, l) => {
    let supply = 0;
    for (let p = prep.lineStart[l]!; p < prep.lineStart[l + 1]!; p += 1) supply += prep.pairUpper[p]!;
    return Math.min(q, supply);
  });
  return lineMax.reduce((a, b) => a + b, 0) === filled ? { exactLines: lineMax } : { minFill: filled };
}

/** A bound from the solver, rounded up to whole pence (every basket costs whole pence), with room for its tolerances. */
function roundUp(bound: number): number {
  return Math.ceil(bound - 1e-6 * Math.max(1, Math.abs(bound)));
}

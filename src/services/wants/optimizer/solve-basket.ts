import { performance } from 'node:perf_hooks';
import type { Highs } from 'highs';
import { describe, measure, type UnitsBasket } from './basket-units';
import { cheapestItems, cheapestUnitsCost } from './cheapest-items';
import { costPhase } from './cost-phase';
import { fillPhase } from './fill-phase';
import { forgetHighsRuntime, highsRuntime } from './highs-runtime';
import { prepare, type PreparedBasket } from './prepare';
import { newStats, type SolveContext, type SolveStats } from './solve-context';
import type { BasketProblem, BasketSolution } from './types';

export type { SolveStats } from './solve-context';

/**
 * The cheapest basket that fills as many wanted units as stock (and maxSellers) allows, with the
 * solver's proven lower bound on its cost. Loads the solver once per process; the solve itself is
 * synchronous CPU work.
 */
export async function solveBasket(problem: BasketProblem): Promise<BasketSolution> {
  const highs = await highsRuntime();
  try {
    return solveBasketWith(highs, problem).solution;
  } catch (error) {
    // WebAssembly.RuntimeError: a trap inside the solver (the lib typings here do not declare WebAssembly).
    if (error instanceof Error && error.name === 'RuntimeError') forgetHighsRuntime(highs);
    throw error;
  }
}

/**
 * Two phases (fill-phase.ts, cost-phase.ts), because filling comes first and a single objective
 * with a large penalty per missing unit would make the solver's gap and bound mostly about that
 * penalty, not about cost: first the most units that can be placed, then the cheapest basket
 * placing at least that many.
 *
 * `lowerBound` is the best of the cost phase's proven bound and a bound of our own (the cheapest
 * items for that many units plus the cheapest delivery), so a time limit hit before the solver
 * proves anything still leaves a true bound.
 */
export function solveBasketWith(highs: Highs, problem: BasketProblem): { solution: BasketSolution; stats: SolveStats } {
  const started = performance.now();
  const stats = newStats();
  const prep = prepare(problem);
  stats.pairs = prep.pairLine.length;
  stats.dominatedListings = prep.dominatedListings;
  stats.replacedPairs = prep.replacedPairs;
  const ctx: SolveContext = {
    highs,
    prep,
    maxSellers: problem.maxSellers !== undefined && problem.maxSellers < prep.usefulSellers.length ? problem.maxSellers : undefined,
    // The solver may overrun its own limit a little (it checks the clock between steps) and the
    // answer still has to be assembled after it stops: keep a reserve so the call returns in time.
    deadline: started + problem.timeLimitMs * 0.97 - Math.min(30, problem.timeLimitMs * 0.1),
    timeLimitMs: problem.timeLimitMs,
    stats,
  };

  const unlimited = cheapestItems(prep, prep.quantity);
  const fill = fillPhase(ctx, unlimited);
  stats.fillProven = fill.proven;
  // JavaScript only: validation, presolve, flows, the greedy start (not the fill MIP).
  stats.prepareMs = performance.now() - started - stats.buildMs - stats.runMs;

  let basket = fill.basket;
  let costOptimal = true;
  let bound = -Infinity;
  if (basket.filled > 0) {
    const cost = costPhase(ctx, basket);
    basket = cost.basket;
    costOptimal = cost.optimal;
    bound = cost.bound;
  }

  const ownBound = basket.filled > 0 ? cheapestUnitsCost(unlimited.marginals, basket.filled) + cheapestDelivery(prep) : 0;
  const lowerBound = costOptimal ? basket.total : Math.min(basket.total, Math.max(ownBound, bound));
  const solution: BasketSolution = {
    status: costOptimal && fill.proven ? 'OPTIMAL' : 'TIME_LIMIT',
    total: basket.total,
    itemsTotal: basket.itemsTotal,
    deliveryTotal: basket.deliveryTotal,
    lowerBound,
    gap: basket.total > 0 ? (basket.total - lowerBound) / basket.total : 0,
    naiveTotal: naiveTotal(prep, basket),
    solveMs: 0,
    ...describe(prep, basket),
  };
  solution.solveMs = performance.now() - started;
  return { solution, stats };
}

/** Any basket with at least one unit pays at least one delivery. */
function cheapestDelivery(prep: PreparedBasket): number {
  return Math.min(...prep.usefulSellers.map((s) => prep.delivery[s]!));
}

/** The cheapest items for the same per-line quantities, with their sellers' deliveries, ignoring maxSellers. */
function naiveTotal(prep: PreparedBasket, basket: UnitsBasket): number {
  const naive = measure(prep, cheapestItems(prep, basket.lineFill).units);
  if (naive.filled !== basket.filled) throw new Error('basket optimizer: the naive basket cannot fill what the optimized one does');
  return naive.total;
}

import { performance } from 'node:perf_hooks';
import type { Highs } from 'highs';
import { columnsFromUnits, describe, measure, openSellers, type UnitsBasket } from './basket-units';
import { cheapestItems, cheapestUnitsCost } from './cheapest-items';
import { greedySellers } from './greedy-sellers';
import { forgetHighsRuntime, highsRuntime } from './highs-runtime';
import { improveSellers } from './local-search';
import { buildMip, restrictSellers } from './mip-model';
import { prepare, type PreparedBasket } from './prepare';
import { runLp, runMip, type MipOutcome } from './run-mip';
import type { BasketProblem, BasketSolution } from './types';

/**
 * Share of the time left that the fill phase may use when maxSellers binds: the cost phase needs
 * the rest to improve the basket and prove its bound.
 */
const FILL_PHASE_SHARE = 0.5;

/** Share of the time left that the local search may use before the cost MIP starts from its basket. */
const LOCAL_SEARCH_SHARE = 0.2;

/** Share of the time left for the LP relaxation (it usually needs far less). */
const LP_SHARE = 0.3;

/** Share of the time left for the MIP restricted to the LP's sellers (hard baskets only). */
const NEIGHBOURHOOD_SHARE = 0.25;

/**
 * Sellers the LP relaxation opens fractionally from which a basket counts as hard: market
 * baskets of 200 lines leave at most a dozen, set-cover ones a hundred (bench/results/optimizer.md).
 */
const HARD_FRACTIONAL_SELLERS = 30;

/** Share of the time limit one polish of a solver incumbent may take (HiGHS waits meanwhile). */
const POLISH_SHARE = 0.01;

/** Where the time went, for the benchmark; not part of the answer. */
export interface SolveStats {
  /** Validation, presolve, flows and the greedy start (pure JavaScript). */
  prepareMs: number;
  /** The local search for a start basket. */
  searchMs: number;
  /** The local search polishing the solver's incumbents, inside its runs (so also counted in runMs). */
  polishMs: number;
  /** Cost of the basket the cost MIP starts from (after the local search). */
  startTotal: number;
  /** The LP relaxation of the cost model. */
  lpMs: number;
  /** Whether the LP relaxation marked the basket as hard (see HARD_FRACTIONAL_SELLERS). */
  hard: boolean;
  /** Cost of the best basket after the MIP restricted to the LP's sellers (hard baskets only). */
  neighbourhoodTotal: number;
  /** Building the sparse models and handing them to the solver. */
  buildMs: number;
  /** The solver's runs. */
  runMs: number;
  /** Which steps ran: the fill MIP only when maxSellers binds and the greedy start falls short; the full cost MIP unless the neighbourhood's basket met the LP bound. */
  fillMip: boolean;
  costMip: boolean;
  fillProven: boolean;
  pairs: number;
  dominatedListings: number;
  replacedPairs: number;
}

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
 * Two phases, because filling comes first and a single objective with a large penalty per
 * missing unit would make the solver's gap and bound mostly about that penalty, not about cost:
 *
 * 1. Fill: the most units that can be placed. Without a seller limit this is a max flow over
 *    lines × listings, solved exactly in JavaScript (with the cheapest items as a by-product).
 *    With maxSellers it is a max-coverage problem: a greedy choice of sellers first, and only if
 *    that falls short of the flow's (unlimited) maximum, a MIP that maximises units.
 * 2. Cost: the MIP that minimises items + delivery among baskets filling at least that many
 *    units, started from the phase-1 basket, within what is left of the time limit.
 *
 * `lowerBound` is the best of the solver's bound and a bound of our own (the cheapest items for
 * that many units plus the cheapest delivery), rounded up because every basket costs whole pence.
 */
export function solveBasketWith(highs: Highs, problem: BasketProblem): { solution: BasketSolution; stats: SolveStats } {
  const started = performance.now();
  // The solver may overrun its own limit a little (it checks the clock between steps) and the
  // answer still has to be assembled after it stops: keep a reserve so the call returns in time.
  const deadline = started + problem.timeLimitMs * 0.97 - Math.min(30, problem.timeLimitMs * 0.1);
  const secondsLeft = () => Math.max(0, deadline - performance.now()) / 1000;
  const stats: SolveStats = {
    prepareMs: 0,
    searchMs: 0,
    polishMs: 0,
    startTotal: 0,
    lpMs: 0,
    hard: false,
    neighbourhoodTotal: 0,
    buildMs: 0,
    runMs: 0,
    fillMip: false,
    costMip: false,
    fillProven: true,
    pairs: 0,
    dominatedListings: 0,
    replacedPairs: 0,
  };

  const prep = prepare(problem);
  stats.pairs = prep.pairLine.length;
  stats.dominatedListings = prep.dominatedListings;
  stats.replacedPairs = prep.replacedPairs;
  const unlimited = cheapestItems(prep, prep.quantity);
  const maxSellers = problem.maxSellers;
  const sellersBind = maxSellers !== undefined && maxSellers < prep.usefulSellers.length;

  // Phase 1: how many units to fill, and a first basket that does.
  let basket = measure(prep, unlimited.units);
  if (sellersBind && unlimited.filled > 0) {
    basket = measure(prep, greedySellers(prep, maxSellers).units);
    if (basket.filled < unlimited.filled) {
      stats.prepareMs = performance.now() - started;
      const fill = buildTimed(stats, () => buildMip(highs, prep, { objective: 'fill', maxSellers }));
      const outcome = runMip(
        highs,
        fill,
        secondsLeft() * FILL_PHASE_SHARE,
        columnsFromUnits(prep, fill.sellerCol, fill.data.numCols, basket.units),
      );
      account(stats, outcome);
      stats.fillMip = true;
      if (outcome.values) {
        const found = measure(prep, cheapestItems(prep, prep.quantity, openSellers(prep, fill.sellerCol, outcome.values)).units);
        if (found.filled > basket.filled) basket = found;
      }
      // Units are integers: a bound below the next unit proves this fill is the most possible.
      stats.fillProven = outcome.optimal || Math.floor(outcome.bound + 1e-6) <= basket.filled;
    }
  }
  if (!stats.fillMip) stats.prepareMs = performance.now() - started;

  // Phase 2: the cheapest basket filling at least as many units.
  let costOptimal = basket.filled === 0;
  let solverBound = -Infinity;
  if (basket.filled > 0) {
    const searchStarted = performance.now();
    const open = improveSellers(
      prep,
      basket.lineFill,
      basket.units,
      sellersBind ? maxSellers : undefined,
      searchStarted + LOCAL_SEARCH_SHARE * (deadline - searchStarted),
    );
    const improved = measure(prep, cheapestItems(prep, basket.lineFill, open).units);
    if (better(improved, basket)) basket = improved;
    stats.searchMs = performance.now() - searchStarted;
    stats.startTotal = basket.total;
    const rule = fillRule(prep, basket.filled);
    const cost = buildTimed(stats, () =>
      buildMip(highs, prep, { objective: 'cost', ...rule, maxSellers: sellersBind ? maxSellers : undefined }),
    );
    const lineCap = rule.exactLines ?? prep.quantity;
    const fromSolver = (values: Float64Array) =>
      measure(prep, cheapestItems(prep, lineCap, openSellers(prep, cost.sellerCol, values)).units);
    // The local search run again from each basket the solver finds (see runMip's `polish`).
    let polished: UnitsBasket | null = null;
    const polish = (incumbent: Float64Array): Float64Array | null => {
      const polishStarted = performance.now();
      if (polishStarted > deadline) return null;
      const found = fromSolver(incumbent);
      const open = improveSellers(
        prep,
        found.lineFill,
        found.units,
        sellersBind ? maxSellers : undefined,
        Math.min(deadline, polishStarted + POLISH_SHARE * problem.timeLimitMs),
      );
      const improved = measure(prep, cheapestItems(prep, found.lineFill, open).units);
      const best = better(improved, found) ? improved : found;
      stats.polishMs += performance.now() - polishStarted;
      if (polished && !better(best, polished)) return null;
      polished = best;
      let objective = 0;
      for (let c = 0; c < incumbent.length; c += 1) objective += cost.data.colCost[c]! * incumbent[c]!;
      return best.total < objective - 1e-6 ? columnsFromUnits(prep, cost.sellerCol, cost.data.numCols, best.units) : null;
    };
    const startOf = (b: UnitsBasket) => columnsFromUnits(prep, cost.sellerCol, cost.data.numCols, b.units);
    const keep = (outcome: MipOutcome) => {
      account(stats, outcome);
      if (outcome.values) {
        const found = fromSolver(outcome.values);
        if (better(found, basket)) basket = found;
      }
      if (polished && better(polished, basket)) basket = polished;
    };

    // The LP relaxation tells easy baskets from hard ones. On market baskets it opens a few
    // dozen sellers, only a handful of them fractionally, and the full MIP below finishes in well
    // under a second. Set-cover baskets (many small overlapping sellers) leave a hundred sellers
    // fractional; there the solver's own heuristics find good baskets only after seconds of root
    // work, so first the MIP restricted to the sellers the LP opens at all (and the start's) is
    // searched, as the solver's RENS heuristic would but earlier, and the local search polishes
    // every basket the solver finds. The LP's optimum is a lower bound either way.
    const lpStarted = performance.now();
    const lp = runLp(highs, cost, secondsLeft() * LP_SHARE);
    stats.lpMs = performance.now() - lpStarted;
    let hard = false;
    if (lp) {
      solverBound = roundUp(lp.objective);
      const allowed = openSellers(prep, cost.sellerCol, startOf(basket));
      let fractional = 0;
      for (const s of prep.usefulSellers) {
        const y = lp.values[cost.sellerCol[s]!]!;
        if (y > 1e-6) allowed[s] = 1;
        if (y > 1e-6 && y < 1 - 1e-6) fractional += 1;
      }
      hard = fractional >= HARD_FRACTIONAL_SELLERS;
      stats.hard = hard;
      if (hard) {
        keep(runMip(highs, restrictSellers(cost, allowed), secondsLeft() * NEIGHBOURHOOD_SHARE, startOf(basket), polish));
        stats.neighbourhoodTotal = basket.total;
      }
      // Proven already when the basket costs no more than the LP's bound.
      costOptimal = basket.total <= solverBound;
    }
    if (!costOptimal) {
      const outcome = runMip(highs, cost, secondsLeft(), startOf(basket), hard ? polish : undefined);
      keep(outcome);
      stats.costMip = true;
      costOptimal = outcome.optimal;
      if (Number.isFinite(outcome.bound)) solverBound = Math.max(solverBound, roundUp(outcome.bound));
    }
  }

  const optimal = costOptimal && stats.fillProven;
  const ownBound = basket.filled > 0 ? cheapestUnitsCost(unlimited.marginals, basket.filled) + cheapestDelivery(prep) : 0;
  const lowerBound = costOptimal ? basket.total : Math.min(basket.total, Math.max(ownBound, solverBound));
  const solution: BasketSolution = {
    status: optimal ? 'OPTIMAL' : 'TIME_LIMIT',
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

/**
 * How phase 2 keeps the fill. When the fill equals what every line can take from its own
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

/**
 * More units first, then less cost. (The cost phase can fill more than phase 1 did only when the
 * fill MIP ran out of time before proving its maximum.)
 */
function better(candidate: UnitsBasket, incumbent: UnitsBasket): boolean {
  return candidate.filled > incumbent.filled || (candidate.filled === incumbent.filled && candidate.total <= incumbent.total);
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

function buildTimed<T>(stats: SolveStats, build: () => T): T {
  const t = performance.now();
  const built = build();
  stats.buildMs += performance.now() - t;
  return built;
}

function account(stats: SolveStats, outcome: { loadMs: number; runMs: number }): void {
  stats.buildMs += outcome.loadMs;
  stats.runMs += outcome.runMs;
}

import { performance } from 'node:perf_hooks';
import type { Highs } from 'highs';
import type { PreparedBasket } from './prepare';
import type { MipOutcome } from './run-mip';

/** What every step of one solve shares: the solver, the prepared problem, the clock, the tallies. */
export interface SolveContext {
  readonly highs: Highs;
  readonly prep: PreparedBasket;
  /** maxSellers when it binds (fewer than the sellers that have something to sell), else undefined. */
  readonly maxSellers: number | undefined;
  /** performance.now() time by which the answer must be assembled. */
  readonly deadline: number;
  readonly timeLimitMs: number;
  readonly stats: SolveStats;
}

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
  /** Sellers the LP relaxation opens fractionally. */
  lpFractional: number;
  /** Whether the LP relaxation marked the basket as hard (see cost-phase.ts). */
  hard: boolean;
  /** Cost of the best basket after the MIP restricted to the LP's sellers (hard baskets only). */
  neighbourhoodTotal: number;
  /** Building the sparse models and handing them to the solver. */
  buildMs: number;
  /** The solver's runs. */
  runMs: number;
  /** The fill MIP runs only when maxSellers binds and the greedy start falls short of the flow. */
  fillMip: boolean;
  /** The full cost MIP runs unless a basket already meets the LP's bound. */
  costMip: boolean;
  fillProven: boolean;
  pairs: number;
  dominatedListings: number;
  replacedPairs: number;
}

export function newStats(): SolveStats {
  return {
    prepareMs: 0,
    searchMs: 0,
    polishMs: 0,
    startTotal: 0,
    lpMs: 0,
    lpFractional: 0,
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
}

export const secondsLeft = (ctx: SolveContext): number => Math.max(0, ctx.deadline - performance.now()) / 1000;

/** Runs `build`, counting its time as model building. */
export function buildTimed<T>(stats: SolveStats, build: () => T): T {
  const t = performance.now();
  const built = build();
  stats.buildMs += performance.now() - t;
  return built;
}

export function account(stats: SolveStats, outcome: MipOutcome): void {
  stats.buildMs += outcome.loadMs;
  stats.runMs += outcome.runMs;
}

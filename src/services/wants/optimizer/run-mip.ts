import { performance } from 'node:perf_hooks';
import type { Highs } from 'highs';
import type { BasketMip } from './mip-model';

export interface MipOutcome {
  readonly optimal: boolean;
  /** Column values of the best solution the solver holds (integral up to its tolerance), or null if none. */
  readonly values: Float64Array | null;
  /** The solver's proven bound on the objective: a lower bound when minimising, an upper one when maximising. */
  readonly bound: number;
  /** Handing the model to the solver (copying it into Wasm memory). */
  readonly loadMs: number;
  readonly runMs: number;
}

/** Primal solution status "feasible" in HiGHS's info store. */
const FEASIBLE = 2;

/**
 * Solves one model and always disposes it: Wasm memory is not garbage collected, so a leaked
 * model would stay for the life of the process. `start` is a feasible basket the solver takes as
 * its first incumbent, so a time limit never leaves it with nothing.
 */
export function runMip(highs: Highs, mip: BasketMip, timeLimitS: number, start?: Float64Array): MipOutcome {
  const loadStarted = performance.now();
  const model = highs.createModel(mip.data);
  try {
    model.options.set({
      output_flag: false,
      // HiGHS's MIP presolve finds little to remove here (the rows are already tight and the
      // JavaScript presolve has dropped dominated listings) and took up to a second of a 4 s solve
      // on 10,000 candidates; without it the market instances solve 2–5× faster (bench/results/optimizer.md).
      presolve: 'off',
      // Proven optimal means optimal, not within the default 0.01 %.
      mip_rel_gap: 0,
      // Every objective coefficient is an integer (pence, or units in the fill phase) on an integer
      // variable, so every basket's objective is an integer: once incumbent and bound are less
      // than 1 apart, the bound rounds to the incumbent and optimality is proven.
      mip_abs_gap: 0.99,
      time_limit: Math.max(0.001, timeLimitS),
    });
    if (start) model.setSolution({ colValue: start });
    const loadMs = performance.now() - loadStarted;
    const runStarted = performance.now();
    const { modelStatus } = model.run();
    const runMs = performance.now() - runStarted;
    const status = highs.constants.modelStatus;
    if (modelStatus === status.infeasible || modelStatus === status.unbounded || modelStatus === status.unboundedOrInfeasible) {
      // Every model built here has the all-zero (or the start) solution and bounded variables.
      throw new Error(`basket optimizer: the solver reported status ${modelStatus} for a model that is feasible and bounded`);
    }
    const values = Number(model.info.get('primal_solution_status')) === FEASIBLE ? model.getSolution().colValue : null;
    const bound = Number(model.info.get('mip_dual_bound'));
    return { optimal: modelStatus === status.optimal && values !== null, values, bound, loadMs, runMs };
  } finally {
    model.dispose();
  }
}

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
 *
 * `polish`, when given, sees each new incumbent the solver finds and may answer a better one,
 * which is handed back at the solver's next user-solution call (HiGHS asks every few hundred
 * milliseconds): the local search then improves on what branch and bound found, and the solver
 * prunes with the result. `relativeGap` > 0 stops early, for runs that look for a basket rather
 * than a proof.
 */
export function runMip(
  highs: Highs,
  mip: BasketMip,
  timeLimitS: number,
  start?: Float64Array,
  polish?: (incumbent: Float64Array) => Float64Array | null,
  relativeGap = 0,
): MipOutcome {
  const loadStarted = performance.now();
  const model = highs.createModel(mip.data);
  try {
    model.options.set({
      output_flag: false,
      // HiGHS's MIP presolve finds little to remove here (the rows are already tight and the
      // JavaScript presolve has dropped dominated listings) and took up to a second of a 4 s solve
      // on 10,000 candidates; without it the market instances solve 2–5× faster (bench/results/optimizer.md).
      presolve: 'off',
      // Proven optimal means optimal, not within the default 0.01 % (a heuristic run may ask for less).
      mip_rel_gap: relativeGap,
      // Every basket's objective is an integer (whole pence, or units in the fill phase), and so is
      // the optimum (x is continuous but integral at the optimum, see mip-model.ts): once incumbent
      // and bound are less than 1 apart, the optimum is the incumbent rounded down, which the
      // basket re-derived from the incumbent's sellers attains, and optimality is proven.
      mip_abs_gap: 0.99,
      time_limit: Math.max(0.001, timeLimitS),
    });
    if (start) model.setSolution({ colValue: start });
    const loadMs = performance.now() - loadStarted;
    const runStarted = performance.now();
    let pending: Float64Array | null = null;
    const { modelStatus } = model.run(
      polish
        ? {
            [highs.constants.callbackType.mipImprovingSolution]: (event) => {
              if (event.data.mip_solution) pending = event.data.mip_solution;
            },
            [highs.constants.callbackType.mipUserSolution]: (event) => {
              if (!pending) return;
              const better = polish(pending);
              pending = null;
              if (better) event.setSolution(better);
            },
          }
        : undefined,
    );
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

/**
 * The model's LP relaxation (every y continuous too): its optimum is a lower bound on every
 * basket, and the sellers it opens even fractionally are where good baskets usually are.
 * Returns null if the LP did not finish in time.
 */
export function runLp(highs: Highs, mip: BasketMip, timeLimitS: number): { values: Float64Array; objective: number } | null {
  const model = highs.createModel({ ...mip.data, integrality: undefined });
  try {
    model.options.set({ output_flag: false, presolve: 'off', time_limit: Math.max(0.001, timeLimitS) });
    const { modelStatus } = model.run();
    if (modelStatus !== highs.constants.modelStatus.optimal) return null;
    return { values: model.getSolution().colValue, objective: model.getObjectiveValue() };
  } finally {
    model.dispose();
  }
}

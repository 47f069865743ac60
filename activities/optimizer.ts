import type { OptimizationSolver } from '../src/services/wants/optimization-solver';

export interface OptimizerActivityDeps {
  optimizationSolver: OptimizationSolver;
}

export interface OptimizerActivities {
  /** Solves the optimization and records its answer; a repeat answers what was recorded. Optimizer task queue. */
  solveOptimization(optimizationId: string): Promise<'DONE' | 'FAILED'>;
  /** Records that the optimization could not be solved (`reason` is kept for operators, not shown to buyers). */
  failOptimization(optimizationId: string, reason: string): Promise<void>;
}

/** The solving activity runs on the optimizer's task queue; recording a failure on the main one. */
export function createOptimizerActivities({ optimizationSolver }: OptimizerActivityDeps) {
  return {
    solving: { solveOptimization: (id: string) => optimizationSolver.solve(id) },
    recording: { failOptimization: (id: string, reason: string) => optimizationSolver.fail(id, reason) },
  } satisfies { solving: Pick<OptimizerActivities, 'solveOptimization'>; recording: Pick<OptimizerActivities, 'failOptimization'> };
}

import type { OptimizerActivities } from '../activities/optimizer';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

/** Beyond the solver's own time limit: reading the candidates and writing the answer. */
const SOLVE_MARGIN_MS = 60_000;

const { failOptimization } = boundedActivities<OptimizerActivities>({
  startToCloseTimeout: '1 minute',
  retry: BOUNDED_RETRY,
});

/** A wants list's basket optimization, solved on `taskQueue` (the optimizer's own) within about `timeLimitMs`. */
export interface OptimizationInput {
  optimizationId: string;
  timeLimitMs: number;
  taskQueue: string;
}

/**
 * `optimization:{optimizationId}`: solves a wants list's basket on the optimizer's own task
 * queue (CPU-bound work, scaled by its own workers) and records the answer; an optimization
 * that cannot be solved is recorded as failed, never left running. Returns its final status.
 */
export async function optimizationWorkflow(input: OptimizationInput): Promise<'DONE' | 'FAILED'> {
  const { solveOptimization } = boundedActivities<OptimizerActivities>({
    taskQueue: input.taskQueue,
    startToCloseTimeout: input.timeLimitMs + SOLVE_MARGIN_MS,
    // A solve that fails twice will fail again: the buyer is better told at once.
    retry: { ...BOUNDED_RETRY, maximumAttempts: 2 },
  });
  try {
    return await solveOptimization(input.optimizationId);
  } catch (err) {
    await failOptimization(
      input.optimizationId,
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err),
    );
    return 'FAILED';
  }
}

import type { DataSource } from 'typeorm';
import { loadBasketProblem, unfilledReason } from './basket-problem';
import { solveBasket } from './optimizer';
import type { OptimizationRequest, OptimizationResult } from './optimization-request';

/**
 * The worker's side of an optimization: reads the market as it is now, solves, and records the
 * answer on the optimization's row. Runs as an activity on the optimizer's task queue.
 */
export class OptimizationSolver {
  constructor(private readonly db: DataSource) {}

  /** Idempotent: an optimization already finished answers its recorded status; one deleted with its list counts as failed. */
  async solve(optimizationId: string): Promise<'DONE' | 'FAILED'> {
    const [row]: Array<{ list_id: string; user_id: string; status: string; request: OptimizationRequest }> = await this.db.query(
      `SELECT list_id, user_id, status, request FROM wants_optimizations WHERE id = $1`,
      [optimizationId],
    );
    if (!row) return 'FAILED';
    if (row.status !== 'RUNNING') return row.status as 'DONE' | 'FAILED';
    const { problem, supply } = await loadBasketProblem(this.db, row.list_id, row.user_id, row.request);
    const solution = await solveBasket(problem);
    const result: OptimizationResult = {
      solverStatus: solution.status,
      total: solution.total,
      itemsTotal: solution.itemsTotal,
      deliveryTotal: solution.deliveryTotal,
      naiveTotal: solution.naiveTotal,
      lowerBound: solution.lowerBound,
      gap: solution.gap,
      solveMs: Math.round(solution.solveMs),
      sellers: solution.sellers,
      picks: solution.picks,
      unfilled: solution.unfilled.map((u) => ({ ...u, reason: unfilledReason(supply.get(u.lineId)!) })),
    };
    // An earlier attempt may have finished meanwhile (a retry after a lost answer): its answer stands.
    await this.db.query(
      `UPDATE wants_optimizations SET status = 'DONE', result = $2, finished_at = now() WHERE id = $1 AND status = 'RUNNING'`,
      [optimizationId, JSON.stringify(result)],
    );
    return this.statusOf(optimizationId);
  }

  private async statusOf(optimizationId: string): Promise<'DONE' | 'FAILED'> {
    const [row]: Array<{ status: 'DONE' | 'FAILED' }> = await this.db.query(`SELECT status FROM wants_optimizations WHERE id = $1`, [
      optimizationId,
    ]);
    return row?.status ?? 'FAILED';
  }

  async fail(optimizationId: string, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE wants_optimizations SET status = 'FAILED', failure = $2, finished_at = now() WHERE id = $1 AND status = 'RUNNING'`,
      [optimizationId, reason.slice(0, 1000)],
    );
  }
}

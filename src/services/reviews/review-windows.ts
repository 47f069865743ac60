import type { DataSource } from 'typeorm';

export interface ReviewWindowDeps {
  /**
   * Starts `review-window:{purchaseId}`, closing a window's length after `completedAt`;
   * idempotent (an existing window counts as started).
   */
  start(purchaseId: string, completedAt: Date): Promise<void>;
  /** Told when a start failed; the completion stands and the reconciliation retries later. */
  onStartFailed(purchaseId: string, err: unknown): void;
}

/**
 * Opens review windows for completed purchases. A completion is committed first and its window
 * started afterwards, so Temporal being down never undoes or blocks a completion: the purchase
 * then stays marked "window not started" (`review_window_started_at IS NULL`) and
 * `openPending` — run periodically by the API — starts it once Temporal answers again.
 */
export class ReviewWindows {
  constructor(
    private readonly db: DataSource,
    private readonly deps: ReviewWindowDeps,
  ) {}

  /** Starts the window of a purchase that has just completed; never throws for Temporal's sake. */
  async open(purchaseId: string): Promise<boolean> {
    const [purchase]: Array<{ completed_at: Date }> = await this.db.query(
      `SELECT completed_at FROM purchases WHERE id = $1 AND status = 'COMPLETED'`,
      [purchaseId],
    );
    return purchase ? this.start(purchaseId, purchase.completed_at) : false;
  }

  private async start(purchaseId: string, completedAt: Date): Promise<boolean> {
    try {
      await this.deps.start(purchaseId, completedAt);
    } catch (err) {
      this.deps.onStartFailed(purchaseId, err);
      return false;
    }
    await this.db.query(`UPDATE purchases SET review_window_started_at = now() WHERE id = $1 AND review_window_started_at IS NULL`, [purchaseId]);
    return true;
  }

  /** Starts the windows of completed purchases that have none yet, oldest first; how many opened. */
  async openPending(limit = 100): Promise<number> {
    const pending: Array<{ id: string; completed_at: Date }> = await this.db.query(
      `SELECT id, completed_at FROM purchases WHERE status = 'COMPLETED' AND review_window_started_at IS NULL ORDER BY completed_at, id LIMIT $1`,
      [limit],
    );
    let opened = 0;
    for (const p of pending) {
      if (!(await this.start(p.id, p.completed_at))) break; // Temporal is still down: the rest would fail alike.
      opened += 1;
    }
    return opened;
  }
}

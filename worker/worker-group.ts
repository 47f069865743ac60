import type { Worker } from '@temporalio/worker';

/**
 * Workers of one process that run, and stop, together (`createWorker`): the main task queue's
 * and those of the queues modules keep for workflows of their own.
 */
export class WorkerGroup {
  constructor(
    /** The main task queue's, which runs every workflow not started on a queue of its own. */
    readonly main: Worker,
    readonly others: readonly Worker[],
  ) {}

  get workers(): readonly Worker[] {
    return [this.main, ...this.others];
  }

  /** Whether any of them still runs. */
  get running(): boolean {
    return this.workers.some((w) => w.getState() === 'RUNNING');
  }

  /** Until every Worker has stopped; rejects with the first that fails. */
  async run(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.run()));
  }

  /** Each running Worker stops polling and finishes its tasks in flight (the SDK's shutdown). */
  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }

  /** Runs the Workers until `until` settles, then stops them and returns its result, as `Worker.runUntil`. */
  async runUntil<R>(until: Promise<R> | (() => Promise<R>)): Promise<R> {
    const running = this.run();
    try {
      return await Promise.race([
        typeof until === 'function' ? until() : until,
        running.then(() => Promise.reject(new Error('the workers stopped before what they ran for settled'))),
      ]);
    } finally {
      this.shutdown();
      await running;
    }
  }
}

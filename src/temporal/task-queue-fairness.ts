/**
 * The Temporal server's dynamic configuration for task-queue fairness (docs/webhooks.md,
 * "Fairness"): with it, the matching service dispatches a task queue's backlog round-robin across
 * the fairness keys the starts carry (a webhook delivery's seller) instead of oldest first. Without
 * it the keys are ignored and the backlog is FIFO. Fairness runs in the new matcher, the default
 * of recent servers, set explicitly here.
 *
 * One partition per task queue: the server keeps a fair queue per partition and spreads tasks
 * across partitions at random (four by default), and a poll takes from one partition. A seller's
 * lone task then waits for a poll to land on its partition while the other partitions hand out a
 * burst's tasks: measured with `test/system/webhook-fairness.test.ts`, it arrived 0th to 53rd of 301
 * with four partitions and 0th or 1st with one. One partition caps a task queue's dispatch rate;
 * what that cost in the webhook bench is in docs/webhooks.md, "Fairness".
 *
 * `scripts/start.mjs`, `docker-compose.yml` and `deploy/temporal-dynamic-config.yaml` pass the
 * same values (a unit test checks).
 */
export const TASK_QUEUE_FAIRNESS_CONFIG = [
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
];

/** The `--dynamic-config-value` arguments that set it on a Temporal CLI dev server. */
export const TASK_QUEUE_FAIRNESS_ARGS = TASK_QUEUE_FAIRNESS_CONFIG.flatMap((value) => ['--dynamic-config-value', value]);

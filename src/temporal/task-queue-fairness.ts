/**
 * The Temporal server's dynamic configuration for task-queue fairness (docs/webhooks.md,
 * "Fairness"): with it, the matching service dispatches a task queue's backlog round-robin across
 * the fairness keys the starts carry (a webhook delivery's seller) instead of oldest first. Without
 * it the keys are ignored and the backlog is FIFO. Fairness runs in the new matcher, the default
 * of recent servers, set explicitly here. `scripts/start.mjs` and `docker-compose.yml` pass the
 * same values (a unit test checks).
 */
export const TASK_QUEUE_FAIRNESS_CONFIG = ['matching.useNewMatcher=true', 'matching.enableFairness=true'];

/** The `--dynamic-config-value` arguments that set it on a Temporal CLI dev server. */
export const TASK_QUEUE_FAIRNESS_ARGS = TASK_QUEUE_FAIRNESS_CONFIG.flatMap((value) => ['--dynamic-config-value', value]);

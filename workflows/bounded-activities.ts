import {
  log,
  proxyActivities,
  proxyLocalActivities,
  upsertMemo,
  workflowInfo,
  type ActivityOptions,
  type RetryPolicy,
} from '@temporalio/workflow';

/** What every workflow's activities retry with unless it needs otherwise: ~6 minutes, then give up. */
export const BOUNDED_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 10,
} as const;

/**
 * `createPayout payoutId=… runDate=…`: the activity and the ids and dates among its arguments
 * (string arguments, and `…Id` and `…Date` fields of object arguments), never other data:
 * a summary is shown in clear wherever the history is read.
 */
export function activitySummary(name: string, args: unknown[]): string {
  const parts: string[] = [];
  for (const arg of args) {
    if (typeof arg === 'string' && ID_LIKE.test(arg)) parts.push(arg);
    else if (arg && typeof arg === 'object' && !Array.isArray(arg)) {
      for (const [key, value] of Object.entries(arg)) {
        if (/(Id|Date)$/.test(key) && typeof value === 'string' && ID_LIKE.test(value)) parts.push(`${key}=${value}`);
      }
    }
  }
  return [name, ...parts].join(' ').slice(0, 200);
}

/** Ids (UUIDs, workflow-id-like `kind:…` strings) and ISO dates: nothing that reads as user text. */
const ID_LIKE = /^[\w:.-]{1,100}$/;

/** Memo key under which a workflow shows its last activity that failed for good. */
export const FAILURE_MEMO = 'lastActivityFailure';

/**
 * `proxyActivities` whose retry policy must be bounded (`maximumAttempts`), and where an activity
 * that fails for good (retries exhausted, or refused as non-retryable) leaves a visible trace
 * before its error reaches the workflow: the `lastActivityFailure` memo (shown by `temporal
 * workflow describe` and the Web UI) and an error log line naming the workflow. With `local`,
 * they run as local activities (in the worker running the workflow task; see
 * workflows/webhook-delivery.ts for when that is worth it).
 */
export function boundedActivities<A extends object>(
  options: ActivityOptions & { retry: RetryPolicy & { maximumAttempts: number } },
  { local = false }: { local?: boolean } = {},
): A {
  const proxy = local ? proxyLocalActivities : proxyActivities;
  return new Proxy({} as A, {
    get: (_target, name) => {
      if (typeof name !== 'string') return undefined;
      return async (...args: unknown[]) => {
        // Each call carries a summary naming what it is about, so a history reads as more than
        // anonymous activity names (the Web UI and `temporal workflow show` display it).
        const inner = proxy<Record<string, (...args: unknown[]) => Promise<unknown>>>({
          ...options,
          summary: activitySummary(name, args),
        });
        try {
          return await inner[name]!(...args);
        } catch (err) {
          const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
          const { workflowId, runId } = workflowInfo();
          upsertMemo({ [FAILURE_MEMO]: { activity: name, message, at: new Date().toISOString() } });
          log.error('activity failed for good', { workflowId, runId, activity: name, error: message });
          throw err;
        }
      };
    },
  });
}

import { ApplicationFailure } from '@temporalio/common';
import { isPermanent } from '../src/services/permanent-failures';
import { DATA_REFUSED } from '../src/domain/failure-types';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyActivity = (...args: any[]) => Promise<unknown>;

/**
 * Applied where the worker registers activities: a permanent failure leaves the activity as a
 * non-retryable `ApplicationFailure` (type `data-refused`), so the workflow gets it at once
 * instead of retrying the same refused write until its retry policy runs out.
 */
export function classifyFailures<T extends object>(activities: T): T {
  const wrapped: Record<string, AnyActivity> = {};
  for (const [name, fn] of Object.entries(activities) as Array<[string, AnyActivity]>) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        if (!isPermanent(err)) throw err;
        throw ApplicationFailure.create({ type: DATA_REFUSED, message: (err as Error).message, nonRetryable: true, cause: err as Error });
      }
    };
  }
  return wrapped as T;
}

import { ApplicationFailure } from '@temporalio/common';
import Joi from 'joi';
import { QueryFailedError } from 'typeorm';
import { DomainError } from '../src/services/errors';
import { DATA_REFUSED } from '../src/domain/failure-types';

/**
 * Whether running the same activity again can only fail the same way: Postgres refused the data
 * (SQLSTATE class 22, data exception, e.g. NUL in text; class 23, integrity constraint
 * violation) or the input failed validation. Anything else (connection loss, timeouts,
 * serialization conflicts) may pass on a retry.
 */
export function isPermanent(err: unknown): boolean {
  if (err instanceof QueryFailedError) {
    const code = (err.driverError as { code?: unknown }).code;
    return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
  }
  if (err instanceof Joi.ValidationError) return true;
  return err instanceof DomainError && err.kind === 'invalid';
}

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

import Joi from '../joi';
import { QueryFailedError } from 'typeorm';
import { DomainError } from './errors';

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

import type Joi from 'joi';
import { invalid, type FieldError } from '../services/errors';

const OPTIONS: Joi.ValidationOptions = { abortEarly: false, convert: true, errors: { wrap: { label: '"' } } };

/**
 * Validates one part of a request and returns the converted value, or throws a 400 listing
 * every failing field (not just the first).
 */
export function validatePart<T>(schema: Joi.Schema, value: unknown, part: 'params' | 'query' | 'body'): T {
  const result = schema.validate(value, OPTIONS);
  if (result.error) {
    const errors: FieldError[] = result.error.details.map((d) => ({
      in: part,
      field: d.path.join('.') || part,
      message: d.message,
    }));
    throw invalid('validation-failed', 'The request is invalid; see `errors` for each field.', errors);
  }
  return result.value as T;
}

import type { FieldError } from '../services/errors';

/**
 * NUL (Postgres text cannot store it, and C-string consumers truncate at it) or a UTF-16
 * surrogate without its partner (not a Unicode character at all: it cannot be encoded as UTF-8).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isIllFormed = (s: string): boolean => s.includes('\0') || LONE_SURROGATE.test(s);

const MESSAGE = 'must be well-formed Unicode text without NUL characters';

/**
 * The one text rule of the API: every string a request carries (body, query, path, headers; keys
 * as well as values, at any depth) is well-formed Unicode without NUL. Returns one error per
 * offending field, named by its dotted path.
 */
export function illFormedFields(value: unknown, part: string): FieldError[] {
  // Nearly every request is clean: prove that without building a path per string (a bulk lookup
  // carries 200), and name the offending fields only when there are some.
  return anyIllFormed(value) ? offendingFields(value, part, []) : [];
}

function anyIllFormed(value: unknown): boolean {
  if (typeof value === 'string') return isIllFormed(value);
  if (Array.isArray(value)) return value.some(anyIllFormed);
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) if (isIllFormed(key) || anyIllFormed(v)) return true;
  }
  return false;
}

function offendingFields(value: unknown, part: string, path: string[]): FieldError[] {
  const here = () => path.join('.') || part;
  if (typeof value === 'string') {
    return isIllFormed(value) ? [{ in: part, field: here(), message: `"${here()}" ${MESSAGE}` }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => offendingFields(v, part, [...path, String(i)]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      isIllFormed(k) ? [{ in: part, field: [...path, k].join('.'), message: `a key ${MESSAGE}` }] : offendingFields(v, part, [...path, k]),
    );
  }
  return [];
}

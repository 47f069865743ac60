import type { ProblemCode } from '../domain/problem-types';
import type { ErrorKind } from '../services/errors';

/** RFC 9457 problem details. Extension members (errors, listingIds, reasons…) sit beside these. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Problem types are documented in docs/errors.md; the URI is relative to the API's base URL. */
export const problemType = (code: ProblemCode) => `/problems/${code}`;

const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  unprocessable: 422,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'rate-limited': 429,
  unavailable: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export const statusOfKind = (kind: ErrorKind): number => STATUS_OF_KIND[kind];

export function problem(status: number, code: ProblemCode, detail?: string, extensions: Record<string, unknown> = {}): Problem {
  const base: Problem = { type: problemType(code), title: TITLES[status] ?? 'Error', status, ...(detail ? { detail } : {}) };
  // Extensions follow the standard members and can never overwrite them.
  return { ...base, ...extensions, ...base };
}

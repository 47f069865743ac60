import type { FieldError } from '../errors';
import { endpointUrlProblem } from './url-policy';

/** Limits on webhook endpoints (docs/webhooks.md). */
export const MAX_ENDPOINTS_PER_SELLER = 20;
export const MAX_CUSTOM_HEADERS = 10;
export const MAX_HEADER_VALUE_LENGTH = 1024;
export const MAX_DESCRIPTION_LENGTH = 500;

/** RFC 9110 token characters: what a header name may consist of. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * Headers a custom header may never set: the signature headers (a receiver must be able to trust
 * them), and those that describe the request itself.
 */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'user-agent',
]);

const RESERVED_PREFIXES = ['webhook-', 'proxy-'];
const isReserved = (name: string) => RESERVED_HEADERS.has(name) || RESERVED_PREFIXES.some((prefix) => name.startsWith(prefix));

/**
 * The reserved names as one regex, for the OpenAPI document (`not` a custom header's name). Spelled
 * without the `i` flag, which JSON Schema patterns cannot carry: each letter is `[xX]`.
 */
const anyCase = (text: string) => text.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
export const RESERVED_HEADER_NAME = new RegExp(
  `^(?:(?:${[...RESERVED_HEADERS].map(anyCase).join('|')})$|${RESERVED_PREFIXES.map(anyCase).join('|')})`,
);

/** Lower-cases header names (HTTP names are case-insensitive) and lists every rule broken. */
export function normaliseHeaders(headers: Record<string, string>): { headers: Record<string, string>; errors: FieldError[] } {
  const out: Record<string, string> = {};
  const errors: FieldError[] = [];
  const fail = (name: string, message: string) => errors.push({ in: 'body', field: `headers.${name}`, message });
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (!HEADER_NAME.test(rawName)) fail(rawName, 'is not a valid header name');
    else if (isReserved(name)) fail(rawName, 'is set by the service and cannot be overridden');
    else if (name in out) fail(rawName, 'is given twice');
    // Control characters (CR/LF above all) would let a value inject further headers; anything
    // above U+00FF cannot be written as a header byte at all.
    else if (!HEADER_VALUE.test(value))
      fail(rawName, 'must be visible ASCII or Latin-1 text (tab and space allowed, no control characters)');
    else out[name] = value;
  }
  return { headers: out, errors };
}

/** RFC 9110 field-value characters as Node writes them: tab, visible ASCII, space, and Latin-1 (U+00A0–U+00FF). */
export const HEADER_VALUE = /^[\t\x20-\x7E\xA0-\xFF]*$/;

export function urlErrors(url: string, allowPrivate: boolean): FieldError[] {
  const problem = endpointUrlProblem(url, allowPrivate);
  return problem ? [{ in: 'body', field: 'url', message: `"url" ${problem}` }] : [];
}

/** Every UTF-16 code unit outside ASCII; a character beyond U+FFFF is escaped as its surrogate pair. */
const NON_ASCII = /[\u0080-\uffff]/g;
const escapeUnit = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A value as JSON in ASCII-only bytes: every character outside ASCII is written as a `\uXXXX`
 * escape (RFC 8259 §7), so the text denotes exactly the same JSON value. Why: clients decode
 * ASCII on their fast path (V8's Buffer#toString and TextDecoder turn ASCII into one-byte
 * strings almost at memcpy speed, while one "é" per item sends the whole body through the slow
 * path into two-byte strings), and the bytes read the same under any charset a client assumes.
 * Measured here: autocannon read 180 KB bulk lookup answers at about 3× the rate once they were
 * ASCII. Every JSON answer of the API is written this way (see `asciiJsonBodies`).
 */
export function toJsonBytes(value: unknown): Buffer {
  return asciiJsonBytes(JSON.stringify(value));
}

/** JSON text as `toJsonBytes` writes it: every character outside ASCII escaped. */
export function asciiJsonBytes(json: string): Buffer {
  return Buffer.from(json.replace(NON_ASCII, escapeUnit), 'latin1');
}

/**
 * What a kept Buffer (`toKeptBytes`) costs in native memory beyond its bytes, which neither V8's
 * heap nor `external` counts: malloc's chunk header and rounding, and the backing store's own
 * records (V8's BackingStore, its shared pointer, the ArrayBuffer's extension). A cache's byte
 * budget counts it once per kept Buffer; `bench/catalog/cache-weights.ts` measures it (about 180
 * bytes with glibc's malloc on 64-bit Linux).
 */
export const KEPT_BUFFER_NATIVE_BYTES = 180;

/**
 * A copy of `bytes` in an allocation of its own, to be kept for minutes. A small Buffer is a slice
 * of a shared 8 KB pool, and one kept slice keeps its whole pool alive: a cache of 100k items of
 * about 900 bytes pinned several times its own size. (`JsonCache` appends its values to large
 * segments instead: `JsonStore`.)
 */
export function toKeptBytes(bytes: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

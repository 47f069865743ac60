import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * Opaque bearer secrets (refresh tokens, personal access tokens). 256 random bits, so a fast
 * SHA-256 is the right storage hash: there is nothing to brute-force. The prefix makes leaked
 * tokens recognisable to secret scanners.
 */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A six-digit one-time code, e.g. for e-mail verification. */
export function newNumericCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/**
 * Short codes have little entropy, so they are stored as a keyed HMAC (a database leak alone
 * does not reveal them) and compared in constant time.
 */
export function hmacCode(key: Uint8Array, scope: string, code: string): string {
  return createHmac('sha256', key).update(`${scope}:${code}`).digest('hex');
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  return constantTimeEqual(a, b, 'hex');
}

/** Compares two secrets without leaking, through timing, how much of them matched. */
export function constantTimeEqual(a: string, b: string, encoding: BufferEncoding = 'utf8'): boolean {
  const x = Buffer.from(a, encoding);
  const y = Buffer.from(b, encoding);
  return x.length === y.length && timingSafeEqual(x, y);
}

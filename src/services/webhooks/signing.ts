import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Endpoint signing secrets and Standard Webhooks signatures.
 *
 * A secret is `whsec_` + base64 of 32 random bytes (the format Standard Webhooks libraries
 * accept). It must stay usable as an HMAC key, so it is stored encrypted (AES-256-GCM under
 * the configured key), not hashed.
 */
const SECRET_PREFIX = 'whsec_';
const CIPHER_VERSION = 'v1';

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [CIPHER_VERSION, iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function decryptSecret(key: Buffer, stored: string): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== CIPHER_VERSION || !iv || !tag || !ciphertext) throw new Error('Unrecognised encrypted secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed
 * with the secret's decoded bytes (Standard Webhooks).
 */
export function signatureHeader(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

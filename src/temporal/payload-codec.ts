import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** The metadata encoding of a payload this codec sealed. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata entry naming the key a payload was sealed with, so old keys can still open it. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface PayloadKey {
  id: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

/**
 * Seals every Temporal payload (workflow and activity inputs and results, signal, update and
 * query arguments, memos) with AES-256-GCM before it leaves the process, so history stored on
 * the cluster holds ciphertext only. The first key encrypts; every listed key decrypts, found by
 * the key id in the payload's metadata, which is how a key is rotated (docs/operations.md).
 * Payloads that arrive unsealed (written before encryption was turned on) pass through.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;
  private readonly current: PayloadKey;

  constructor(keys: PayloadKey[]) {
    if (keys.length === 0) throw new Error('at least one payload key is required');
    for (const k of keys) {
      if (k.key.length !== 32) throw new Error(`payload key "${k.id}" must be 32 bytes`);
    }
    this.current = keys[0]!;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: Buffer.from(this.current.id),
        },
        data: sealed,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
      const key = keyId === undefined ? undefined : this.byId.get(keyId);
      if (!key) throw new Error(`payload sealed with unknown key "${keyId ?? ''}"`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error('sealed payload is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

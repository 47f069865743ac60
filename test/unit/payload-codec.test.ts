import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadConfig } from '../../src/config';
import { startCodecServer } from '../../src/temporal/codec-server';
import { AesGcmPayloadCodec, KEY_ID_METADATA } from '../../src/temporal/payload-codec';

const oldKey = { id: 'k1', key: randomBytes(32) };
const newKey = { id: 'k2', key: randomBytes(32) };
const secret = { comment: 'the parcel arrived crushed, 12 Elm Street' };
const payload = () => defaultPayloadConverter.toPayload(secret);
const keyId = (p: { metadata?: Record<string, Uint8Array> | null }) => Buffer.from(p.metadata![KEY_ID_METADATA]!).toString();

test('a sealed payload carries no plaintext and opens to the original', async () => {
  const codec = new AesGcmPayloadCodec([newKey]);
  const [sealed] = await codec.encode([payload()]);
  expect(Buffer.from(sealed!.data!).toString('latin1')).not.toContain('Elm Street');
  expect(keyId(sealed!)).toBe('k2');
  const [opened] = await codec.decode([sealed!]);
  expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(secret);
});

test('after rotation the new key seals and the old key still opens what it sealed', async () => {
  const [before] = await new AesGcmPayloadCodec([oldKey]).encode([payload()]);
  const rotated = new AesGcmPayloadCodec([newKey, oldKey]);
  const [after] = await rotated.encode([payload()]);
  expect(keyId(after!)).toBe('k2');
  const opened = await rotated.decode([before!, after!]);
  expect(opened.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([secret, secret]);
  await expect(new AesGcmPayloadCodec([newKey]).decode([before!])).rejects.toThrow('unknown key "k1"');
});

test('a tampered payload is refused, an unsealed one passes through', async () => {
  const codec = new AesGcmPayloadCodec([newKey]);
  const [sealed] = await codec.encode([payload()]);
  const data = Buffer.from(sealed!.data!);
  data[20] = data[20]! ^ 1;
  await expect(codec.decode([{ ...sealed!, data }])).rejects.toThrow();
  const plain = payload();
  expect(await codec.decode([plain])).toEqual([plain]);
});

test('keys come from TEMPORAL_PAYLOAD_KEYS, newest first; production has no embedded key', () => {
  const b64 = (k: Buffer) => k.toString('base64');
  const config = loadConfig({ DATABASE_URL: 'postgres://x@h/db', TEMPORAL_PAYLOAD_KEYS: `k2:${b64(newKey.key)}, k1:${b64(oldKey.key)}` });
  expect(config.temporal.payloadKeys).toEqual([newKey, oldKey]);
  expect(loadConfig({ DATABASE_URL: 'postgres://x@h/db' }).temporal.payloadKeys[0]!.id).toBe('embedded-dev');
  expect(() => loadConfig({ DATABASE_URL: 'postgres://x@h/db', NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) })).toThrow(
    /TEMPORAL_PAYLOAD_KEYS/,
  );
  expect(() => loadConfig({ DATABASE_URL: 'postgres://x@h/db', TEMPORAL_PAYLOAD_KEYS: 'k1:short' })).toThrow(/id:base64-of-32-bytes/);
});

test('the codec endpoint decodes for the Web UI, with CORS for its origin only', async () => {
  const codec = new AesGcmPayloadCodec([newKey]);
  const server = await startCodecServer(codec, { host: '127.0.0.1', port: 0, corsOrigins: ['http://localhost:8233'] });
  try {
    const [sealed] = await codec.encode([payload()]);
    const asJson = (p: typeof sealed) => ({
      metadata: Object.fromEntries(Object.entries(p!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
      data: Buffer.from(p!.data!).toString('base64'),
    });
    const res = await fetch(`${server.url}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:8233', 'x-namespace': 'default' },
      body: JSON.stringify({ payloads: [asJson(sealed)] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const body = (await res.json()) as { payloads: { data: string }[] };
    expect(JSON.parse(Buffer.from(body.payloads[0]!.data, 'base64').toString())).toEqual(secret);

    const preflight = await fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const bad = await fetch(`${server.url}/decode`, { method: 'POST', body: '{"nope":1}' });
    expect(bad.status).toBe(400);
  } finally {
    await server.close();
  }
});

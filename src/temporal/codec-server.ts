import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** A payload as the Temporal Web UI and CLI send it: proto3 JSON, bytes in base64. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

function fromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

async function readJson(req: IncomingMessage): Promise<{ payloads: JsonPayload[] }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payloads?: unknown };
  if (!Array.isArray(body.payloads)) throw new Error('expected {"payloads": [...]}');
  return { payloads: body.payloads as JsonPayload[] };
}

export interface CodecServerOptions {
  host: string;
  port: number;
  /** Web UI origins allowed to call it from the browser (CORS). */
  corsOrigins: string[];
}

/**
 * The remote codec endpoint of the Temporal Web UI and CLI (`POST /decode`, `POST /encode`),
 * so an operator who can reach it reads decrypted payloads while the cluster stores ciphertext.
 * Whoever reaches it can decrypt: it listens on loopback by default and belongs behind the same
 * sign-in as the Web UI (docs/operations.md).
 */
export async function startCodecServer(codec: PayloadCodec, options: CodecServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const cors = (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    if (origin && options.corsOrigins.includes(origin)) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      res.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'origin');
    }
  };
  const server = createServer((req, res) => {
    cors(req, res);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    if (req.method !== 'POST' || (path !== '/decode' && path !== '/encode')) {
      res.writeHead(404).end();
      return;
    }
    readJson(req)
      .then(async ({ payloads }) => {
        const input = payloads.map(fromJson);
        const output = path === '/decode' ? await codec.decode(input) : await codec.encode(input);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ payloads: output.map(toJson) }));
      })
      .catch((err: unknown) => {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`${err instanceof Error ? err.message : 'bad request'}\n`);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

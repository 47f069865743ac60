import type { Context } from 'koa';
import { DomainError } from '../services/errors';

const tooLarge = (limit: number) =>
  new DomainError('payload-too-large', 'payload-too-large', `The body is larger than this route accepts (${limit} bytes).`);

/**
 * Reads a raw request body (routes with `rawBody`), refusing more than `limit` bytes: by the
 * declared Content-Length before reading anything, and by counting while streaming (chunked
 * bodies). An oversized body is not read further; the connection closes after the answer.
 */
export function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = ctx.request.length;
  if (declared !== undefined && declared > limit) {
    ctx.set('Connection', 'close');
    return Promise.reject(tooLarge(limit));
  }
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        ctx.set('Connection', 'close');
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

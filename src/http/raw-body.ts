import type { Context } from 'koa';
import { DomainError, invalid } from '../services/errors';

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

/**
 * A raw body that is text (a CSV file), decoded as UTF-8, under the API's one text rule
 * (docs/conventions.md, "Text"): the router checks parsed bodies, but never sees a raw one, so
 * it is checked here. NUL is refused as a 400 naming its line, before anything is stored.
 * (UTF-8 decoding cannot produce a lone surrogate: invalid bytes become U+FFFD.)
 */
export async function readRawText(ctx: Context, limit: number): Promise<string> {
  const text = (await readRawBody(ctx, limit)).toString('utf8');
  const nul = text.indexOf('\0');
  if (nul >= 0) {
    const line = text.slice(0, nul).split('\n').length;
    throw invalid('validation-failed', 'The request is invalid; see `errors` for each field.', [
      { in: 'body', field: 'body', message: `"body" must be well-formed Unicode text without NUL characters (line ${line})` },
    ]);
  }
  return text;
}

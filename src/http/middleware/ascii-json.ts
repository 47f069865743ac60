import { Stream } from 'node:stream';
import type { Middleware } from 'koa';
import { toJsonBytes } from '../../json-bytes';

/**
 * Writes every JSON body (an object or array left in `ctx.body`, problem+json included) with
 * `toJsonBytes` instead of Koa's own `JSON.stringify`, so all answers are ASCII-only JSON.
 * The content type Koa or the handler chose is kept.
 */
export function asciiJsonBodies(): Middleware {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || body instanceof Stream) return;
    const type = ctx.response.get('Content-Type') || 'application/json';
    ctx.body = toJsonBytes(body);
    ctx.set('Content-Type', type);
  };
}

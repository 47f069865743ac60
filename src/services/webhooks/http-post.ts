import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { guardedLookup, hostOf, isPublicAddress } from './url-policy';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** What one attempt observed; `statusCode` is null when no response arrived. */
export interface WebhookResponse {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The start of the response body, for failure inspection. */
  excerpt: string | null;
  /** From a `Retry-After` header (seconds or HTTP date), when present. */
  retryAfterMs: number | null;
}

const EXCERPT_BYTES = 1024;

/**
 * POSTs one webhook. Never throws for what the receiver does (refusal, timeout, bad status):
 * those are results to record. Redirects are not followed: a 3xx is a failed attempt, since
 * following it could lead to a host the address check never saw.
 */
export function postWebhook(req: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(req.url);
  const host = hostOf(url);
  // Literal addresses skip DNS (and so the guarded lookup): check them here.
  if (net.isIP(host) && !req.allowPrivate && !isPublicAddress(host)) {
    return Promise.resolve(failure(elapsed(), `refused: ${host} is not a public address`));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let request: http.ClientRequest;
    try {
      request = transport.request(
        url,
        {
          method: 'POST',
          headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body).toString() },
          lookup: guardedLookup(req.allowPrivate),
          timeout: req.timeoutMs,
          agent: false,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < EXCERPT_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () => {
            clearTimeout(deadline);
            const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
            resolve({
              statusCode: response.statusCode ?? null,
              latencyMs: elapsed(),
              error: null,
              excerpt: excerpt || null,
              retryAfterMs: parseRetryAfter(response.headers['retry-after']),
            });
          });
          response.on('error', (err) => settleError(err));
        },
      );
    } catch (err) {
      // The request could not even be built (e.g. a stored header Node refuses to write): an
      // attempt that failed, recorded like any other, never an exception retried forever.
      resolve(failure(elapsed(), `not sent: ${(err as Error).message}`));
      return;
    }
    // `timeout` above only covers socket idleness; this bounds the whole exchange.
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${req.timeoutMs} ms`)), req.timeoutMs);
    const settleError = (err: Error) => {
      clearTimeout(deadline);
      resolve(failure(elapsed(), err.message));
    };
    request.on('timeout', () => request.destroy(new Error(`timed out after ${req.timeoutMs} ms`)));
    request.on('error', settleError);
    request.end(req.body);
  });
}

const failure = (latencyMs: number, error: string): WebhookResponse => ({
  statusCode: null,
  latencyMs,
  error,
  excerpt: null,
  retryAfterMs: null,
});

export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

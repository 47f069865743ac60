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
 * How long a connection to a receiver is kept open between deliveries. Below the 5 s idle
 * timeout of Node's own HTTP server, the shortest common default; a receiver that announces a
 * shorter one (`Keep-Alive: timeout=…`) is taken at its word.
 */
const IDLE_CONNECTION_MS = 4_000;
/** Idle connections kept per receiver (host and port); more are closed once their delivery is done. */
const IDLE_CONNECTIONS_PER_RECEIVER = 8;

type Transport = typeof http | typeof https;

const KEEP_ALIVE = { keepAlive: true, timeout: IDLE_CONNECTION_MS, maxFreeSockets: IDLE_CONNECTIONS_PER_RECEIVER };

/**
 * Connections kept alive between deliveries, so a receiver that gets many events pays for one
 * TCP (and TLS) handshake, not one per delivery. One pool per transport and per address policy:
 * a pool's sockets were all opened through the same `guardedLookup`, so a socket opened while
 * private addresses were allowed is never handed to a delivery that must not reach them.
 */
const POOLS = {
  http: { public: new http.Agent(KEEP_ALIVE), private: new http.Agent(KEEP_ALIVE) },
  https: { public: new https.Agent(KEEP_ALIVE), private: new https.Agent(KEEP_ALIVE) },
};

/**
 * POSTs one webhook. Never throws for what the receiver does (refusal, timeout, bad status):
 * those are results to record. Redirects are not followed: a 3xx is a failed attempt, since
 * following it could lead to a host the address check never saw.
 */
export async function postWebhook(req: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const url = new URL(req.url);
  const host = hostOf(url);
  // Literal addresses skip DNS (and so the guarded lookup): check them here.
  if (net.isIP(host) && !req.allowPrivate && !isPublicAddress(host)) {
    return failure(elapsedSince(started), `refused: ${host} is not a public address`);
  }
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const transport = scheme === 'https' ? https : http;
  const pool = POOLS[scheme][req.allowPrivate ? 'private' : 'public'];
  const first = await exchange(req, url, transport, pool, started);
  if (!first.staleConnection) return first.response;
  // The kept connection had been closed by the receiver (its idle timeout raced this request):
  // nothing was answered, so the same attempt goes once more on a new connection, within what
  // is left of its deadline. A receiver may rarely see the event twice; `webhook-id` is there
  // for that, as for every retry.
  return (await exchange(req, url, transport, false, started)).response;
}

const elapsedSince = (started: number) => Math.round(performance.now() - started);

/** Reset or closed before any answer, on a connection an earlier delivery left open. */
const isStaleConnection = (request: http.ClientRequest, err: NodeJS.ErrnoException) =>
  request.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');

/** One HTTP exchange, over `agent` (false: a connection of its own), bounded by `req.timeoutMs` since `started`. */
function exchange(
  req: WebhookRequest,
  url: URL,
  transport: Transport,
  agent: http.Agent | false,
  started: number,
): Promise<{ response: WebhookResponse; staleConnection: boolean }> {
  const elapsed = () => elapsedSince(started);
  const settled = (response: WebhookResponse, staleConnection = false) => ({ response, staleConnection });
  const remainingMs = Math.max(1, req.timeoutMs - elapsed());
  return new Promise((resolve) => {
    let request: http.ClientRequest;
    let answered = false;
    try {
      request = transport.request(
        url,
        {
          method: 'POST',
          headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body).toString() },
          lookup: guardedLookup(req.allowPrivate),
          timeout: remainingMs,
          agent,
        },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < EXCERPT_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () => {
            clearTimeout(deadline);
            const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
            resolve(
              settled({
                statusCode: response.statusCode ?? null,
                latencyMs: elapsed(),
                error: null,
                excerpt: excerpt || null,
                retryAfterMs: parseRetryAfter(response.headers['retry-after']),
              }),
            );
          });
          response.on('error', (err) => settleError(err));
        },
      );
    } catch (err) {
      // The request could not even be built (e.g. a stored header Node refuses to write): an
      // attempt that failed, recorded like any other, never an exception retried forever.
      resolve(settled(failure(elapsed(), `not sent: ${(err as Error).message}`)));
      return;
    }
    const timedOut = () => request.destroy(new Error(`timed out after ${req.timeoutMs} ms`));
    // `timeout` above only covers socket idleness; this bounds the whole exchange.
    const deadline = setTimeout(timedOut, remainingMs);
    const settleError = (err: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      resolve(settled(failure(elapsed(), err.message), !answered && isStaleConnection(request, err)));
    };
    request.on('timeout', timedOut);
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

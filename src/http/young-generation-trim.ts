import type { Server } from 'node:http';

/**
 * How long the API must have answered nothing before it collects, and then again between its two
 * collections. V8 shrinks the young generation only at the end of a collection that finds the
 * allocation rate low over about the last 5 s, judged from what was allocated since the collection
 * before.
 */
export const TRIM_AFTER_IDLE_MS = 6000;

/**
 * When to collect, as plain decisions (the wiring below gives it requests and the time): after a
 * spell of traffic, once `idleMs` after the last request and once more `idleMs` after that, unless
 * a request comes first. Two, because the first collection still counts what the end of the
 * traffic allocated since the last collection under load (tens of MB in a few seconds: not a low
 * rate), and only the second, with nothing allocated in between, lets V8 shrink. A process that
 * has served nothing since its last trim (or since it started) never collects.
 */
export class IdleTrimSchedule {
  private nextAt = 0;
  private left = 0;

  constructor(private readonly idleMs: number) {}

  requested(now: number): void {
    this.nextAt = now + this.idleMs;
    this.left = 2;
  }

  /** Whether to collect now. */
  due(now: number): boolean {
    if (this.left === 0 || now < this.nextAt) return false;
    this.left -= 1;
    this.nextAt = now + this.idleMs;
    return true;
  }
}

/**
 * Gives back the API's young generation once it has been idle, by two minor collections
 * (`IdleTrimSchedule`: scavenges of what little the idle process holds there, a few ms each).
 *
 * Why: under load V8 grows the young generation to its maximum (128 MiB resident with
 * `--max-semi-space-size=64`, src/api-node-flags.json) and shrinks it only at the end of a
 * collection that sees a low allocation rate. An idle process allocates next to nothing, so no
 * collection comes, and the young generation stayed at its peak for as long as the process stayed
 * quiet (over two minutes measured, docs/operations.md "The API's young generation"). The next
 * burst grows it back within its first scavenges.
 *
 * `collect` is V8's `gc` (`globalThis.gc`), which Node offers only with `--expose-gc` (in the
 * API's flags); without it this does nothing. Returns a function that stops it.
 */
export function trimYoungGenerationWhenIdle(
  server: Server,
  collect: NodeJS.GCFunction | undefined,
  idleMs = TRIM_AFTER_IDLE_MS,
): () => void {
  if (!collect) return () => undefined;
  const schedule = new IdleTrimSchedule(idleMs);
  const onRequest = () => schedule.requested(Date.now());
  server.on('request', onRequest);
  const timer = setInterval(
    () => {
      if (schedule.due(Date.now())) collect({ type: 'minor' });
    },
    Math.ceil(idleMs / 6),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    server.off('request', onRequest);
  };
}

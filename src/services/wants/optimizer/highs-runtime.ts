import loadHighs, { type Highs } from 'highs';

let runtime: Promise<Highs> | undefined;

/**
 * The HiGHS WebAssembly runtime, instantiated once per process and shared by every solve:
 * compiling and instantiating the module costs tens of milliseconds and its linear memory, once
 * grown, is never handed back. Solves are synchronous, so sharing it needs no locking. A failed
 * load is forgotten, so the next call tries again.
 */
export function highsRuntime(): Promise<Highs> {
  runtime ??= loadHighs().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

/**
 * Drops the shared runtime after a WebAssembly trap (out of memory, an abort inside HiGHS): its
 * memory may be left inconsistent, so the next solve loads a fresh instance instead of reusing it.
 */
export function forgetHighsRuntime(broken: Highs): void {
  void runtime?.then((current) => {
    if (current === broken) runtime = undefined;
  });
}

import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';

/** A trace context as W3C headers (`traceparent`, `tracestate`), the form it is stored in. */
export type TraceCarrier = Record<string, string>;

/**
 * The active trace context as headers, to store beside work that runs later elsewhere (a start
 * intent in the start outbox); undefined when there is none, and always when tracing is off
 * (no propagator is registered then).
 */
export function activeTraceCarrier(): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** Runs `fn` as part of the stored trace (a child of the span that was active when it was stored). */
export function withTraceCarrier<T>(carrier: TraceCarrier | undefined, fn: () => T): T {
  if (!carrier) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), fn);
}

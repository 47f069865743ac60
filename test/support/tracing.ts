import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '../../src/observability/tracing';

export interface TestTracing {
  tracing: Tracing;
  exporter: InMemorySpanExporter;
}

/**
 * The production tracing setup (src/observability/tracing.ts) exporting to memory, each span as
 * it ends. Node's `require` hook patches `pg` in production; Jest loads modules through its own
 * registry, which the hook never sees, so the same instrumentations are applied here to the `pg`
 * and `pg-pool` this test file loads (and TypeORM with it).
 */
export function startTestTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing({ exporter: 'none' }, { serviceName: 'marketplace-test', spanProcessor: new SimpleSpanProcessor(exporter) });
  for (const instrumentation of tracing.instrumentations) {
    for (const definition of instrumentation.getModuleDefinitions()) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      definition.patch?.(require(definition.name));
    }
  }
  return { tracing, exporter };
}

/** The spans of one trace, and lookups that fail loudly, so an assertion names what is missing. */
export class Trace {
  constructor(readonly spans: ReadableSpan[]) {}

  static of(all: ReadableSpan[], traceId: string): Trace {
    return new Trace(all.filter((s) => s.spanContext().traceId === traceId));
  }

  /** The one span named `name` (fails when there is none or several). */
  one(name: string): ReadableSpan {
    const found = this.spans.filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one span named ${name}, found ${found.length} among: ${this.names().join(', ')}`);
    return found[0]!;
  }

  /** The spans whose parent is `parent`. */
  childrenOf(parent: ReadableSpan): ReadableSpan[] {
    return this.spans.filter((s) => s.parentSpanId === parent.spanContext().spanId);
  }

  names(): string[] {
    return this.spans.map((s) => s.name);
  }

  /** Every span's parent is in the trace, except the root's (whose parent may be the caller's). */
  orphans(rootSpanId: string): ReadableSpan[] {
    const ids = new Set(this.spans.map((s) => s.spanContext().spanId));
    return this.spans.filter((s) => s.spanContext().spanId !== rootSpanId && (!s.parentSpanId || !ids.has(s.parentSpanId)));
  }
}

import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations, type InstrumentationBase } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { TracingConfig } from '../config';

/**
 * What one process (the API or the worker) traces with. Off, every part is absent: no tracer
 * provider is registered (the OpenTelemetry API stays its built-in no-op), nothing is patched,
 * no client or activity interceptor runs, so no start carries a trace and the workflow
 * interceptors (workflows/tracing-interceptors.ts) stand aside.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** For every Temporal client of the process: starts, signals and Updates carry the active trace. */
  readonly clientInterceptors: ClientInterceptors | undefined;
  /** The worker's activity interceptors and the sink its workflow interceptors export spans through. */
  readonly worker: { interceptors: WorkerInterceptors; sinks: InjectedSinks<OpenTelemetrySinks> } | undefined;
  /**
   * The instrumentations registered (pg). They patch modules as Node's `require` loads them, so
   * tracing must start before anything loads `pg`; Jest loads modules through its own registry,
   * which is why tests apply them to the modules they load (test/support/tracing.ts).
   */
  readonly instrumentations: InstrumentationBase[];
  /** Exports the spans still buffered, then unregisters everything. */
  shutdown(): Promise<void>;
}

/**
 * The workflow span sink of a worker with tracing off. Runs started while tracing was on keep
 * making workflow spans (their code must not change, docs/operations.md); they are dropped here.
 */
export const DROP_WORKFLOW_SPANS: InjectedSinks<OpenTelemetrySinks> = { exporter: { export: { fn: () => undefined } } };

export const TRACING_OFF: Tracing = {
  enabled: false,
  clientInterceptors: undefined,
  worker: undefined,
  instrumentations: [],
  shutdown: async () => undefined,
};

export interface StartTracingOptions {
  /** `service.name` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
  serviceName: string;
  /** Where spans go instead of the configured exporter (tests: an in-memory exporter). */
  spanProcessor?: SpanProcessor;
}

/**
 * Registers the process's tracer provider, W3C trace-context propagation and the pg
 * instrumentation, and returns the Temporal interceptors that carry traces through workflows
 * and activities (docs/operations.md, "Tracing"). The OpenTelemetry SDK reads its own settings:
 * OTEL_EXPORTER_OTLP_ENDPOINT / _HEADERS / _TIMEOUT, OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*,
 * OTEL_PROPAGATORS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES.
 */
export function startTracing(config: TracingConfig, options: StartTracingOptions): Tracing {
  if (config.exporter === 'none' && !options.spanProcessor) return TRACING_OFF;
  const resource = Resource.default().merge(new Resource({ 'service.name': options.serviceName }).merge(envDetectorSync.detect()));
  const spanProcessor =
    options.spanProcessor ?? new BatchSpanProcessor(config.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global provider, AsyncLocalStorage context manager, and the OTEL_PROPAGATORS propagators
  // (default: W3C tracecontext and baggage).
  provider.register();
  const instrumentations: InstrumentationBase[] = [
    // Statement spans only inside a request, an activity or a workflow start: the dispatcher's
    // polling and the metrics scrapes would otherwise each open a trace of their own. Bind
    // values are never recorded (they carry personal data).
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
  ];
  const unregister = registerInstrumentations({ tracerProvider: provider, instrumentations });
  return {
    enabled: true,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    worker: {
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      // Workflow code cannot export: its spans leave the sandbox through this sink.
      sinks: { exporter: makeWorkflowExporter(spanProcessor, resource) },
    },
    instrumentations,
    shutdown: async () => {
      unregister();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

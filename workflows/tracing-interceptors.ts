import type {
  Next,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';

type OpenTelemetryWorkflow = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow');

/**
 * The OpenTelemetry workflow interceptors, loaded only by a run that was started with a trace.
 * Each new run evaluates afresh the modules of the workflow bundle it loads, and OpenTelemetry's
 * (api, core, sdk-trace-base, semantic-conventions: about 650 KB of the bundle) are the largest
 * part of them besides the SDK itself: a CPU profile of the worker's workflow thread during a
 * webhook burst showed their evaluation, every run, whether traced or not. Webpack still bundles
 * them; this `require` only decides when they run.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const openTelemetryWorkflow = (): OpenTelemetryWorkflow => require('@temporalio/interceptors-opentelemetry/lib/workflow');

/** The header the OpenTelemetry client interceptor puts a start's trace context in. */
const TRACE_HEADER = '_tracer-data';

/**
 * The OpenTelemetry workflow interceptors (spans for the run, its signals, Updates and queries,
 * and its activity schedules, which pass the trace on to the activities), for runs that were
 * started with a trace context only.
 *
 * Not a workflow: registered with `workflowInterceptorModules` in every bundle of the workflows
 * (worker/workflow-bundles.ts). The interceptors add awaits around activity schedules and
 * handlers, which moves commands relative to each other, so a run must take them either always or
 * never: whether its start carried a trace is in its history, hence the same on every replay on
 * any worker, and a run that was started without (before tracing existed, or while it was off)
 * keeps running exactly the code it was recorded with (docs/operations.md, "Tracing").
 */
export const interceptors = (): WorkflowInterceptors => {
  let otel:
    | { inbound: OpenTelemetryInboundInterceptor; outbound: OpenTelemetryOutboundInterceptor; internals: OpenTelemetryInternalsInterceptor }
    | undefined;
  type In = WorkflowInboundCallsInterceptor;
  type Out = WorkflowOutboundCallsInterceptor;
  const inbound: In = {
    execute(input, next) {
      if (TRACE_HEADER in input.headers) {
        const { OpenTelemetryInboundInterceptor, OpenTelemetryOutboundInterceptor, OpenTelemetryInternalsInterceptor } =
          openTelemetryWorkflow();
        otel = {
          inbound: new OpenTelemetryInboundInterceptor(),
          outbound: new OpenTelemetryOutboundInterceptor(),
          internals: new OpenTelemetryInternalsInterceptor(),
        };
      }
      return otel ? otel.inbound.execute(input, next) : next(input);
    },
    handleSignal: (input, next: Next<In, 'handleSignal'>) => (otel ? otel.inbound.handleSignal(input, next) : next(input)),
    handleUpdate: (input, next: Next<In, 'handleUpdate'>) => (otel ? otel.inbound.handleUpdate(input, next) : next(input)),
    validateUpdate: (input, next: Next<In, 'validateUpdate'>) => (otel ? otel.inbound.validateUpdate(input, next) : next(input)),
    handleQuery: (input, next: Next<In, 'handleQuery'>) => (otel ? otel.inbound.handleQuery(input, next) : next(input)),
  };
  const outbound: Out = {
    scheduleActivity: (input, next: Next<Out, 'scheduleActivity'>) => (otel ? otel.outbound.scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next: Next<Out, 'scheduleLocalActivity'>) =>
      otel ? otel.outbound.scheduleLocalActivity(input, next) : next(input),
    startChildWorkflowExecution: (input, next: Next<Out, 'startChildWorkflowExecution'>) =>
      otel ? otel.outbound.startChildWorkflowExecution(input, next) : next(input),
    startNexusOperation: (input, next: Next<Out, 'startNexusOperation'>) =>
      otel ? otel.outbound.startNexusOperation(input, next) : next(input),
    continueAsNew: (input, next: Next<Out, 'continueAsNew'>) => (otel ? otel.outbound.continueAsNew(input, next) : next(input)),
    signalWorkflow: (input, next: Next<Out, 'signalWorkflow'>) => (otel ? otel.outbound.signalWorkflow(input, next) : next(input)),
    getLogAttributes: (input, next: Next<Out, 'getLogAttributes'>) => (otel ? otel.outbound.getLogAttributes(input, next) : next(input)),
  };
  const internals: WorkflowInternalsInterceptor = {
    dispose: (input, next) => (otel ? otel.internals.dispose(input, next) : next(input)),
  };
  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};

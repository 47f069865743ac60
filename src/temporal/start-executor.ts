import { WorkflowExecutionAlreadyStartedError, type Client, type Workflow } from '@temporalio/client';
import { withTraceCarrier } from '../observability/trace-context';
import type { WorkflowStart } from '../services/workflow-starts';
import type { StartExecutor, StartResult } from '../services/workflow-starts/dispatcher';
import { startOptionsOf } from '../../workflows/contracts/start-options';

/**
 * How long one start may wait for Temporal before it counts as failed, so an unreachable
 * Temporal fails a dispatch pass promptly instead of after the SDK's long connection retries.
 */
const START_DEADLINE_MS = 5000;

/**
 * Carries out stored start intents on a Temporal client: the only code that calls
 * `workflow.start` / `signalWithStart`. An id already taken (REJECT_DUPLICATE, or a running
 * workflow) counts as started: the intent was fulfilled by an earlier pass or request.
 */
export class TemporalStartExecutor implements StartExecutor {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /**
     * Whether starts can be eager: only on a client over the worker's own NativeConnection.
     * An eager start asks Temporal to hand the new workflow's first task straight back to the
     * worker in this process instead of queueing it for a poll: one trip through Temporal's
     * matching less, and a new workflow at idle starts at once. When the worker has no free slot
     * Temporal queues the task as usual. Signal-with-start cannot be eager. Every queue a start
     * may go to needs its Worker on that connection for the start to be eager.
     */
    private readonly canStartEagerly = false,
    /** Workflow types started on a queue of their own (`workflowTaskQueues`); the rest go to `taskQueue`. */
    private readonly queueByType: Readonly<Record<string, string>> = {},
  ) {}

  /** `how.eager`: the dispatcher has no backlog (see `StartExecutor`). */
  async execute(start: WorkflowStart, how: { eager: boolean }): Promise<StartResult> {
    const options = start.options ?? {};
    const common = { ...startOptionsOf(start), taskQueue: this.queueByType[start.workflowType] ?? this.taskQueue };
    try {
      const signal = options.signal;
      // Inside the trace of the request that asked for it, when one was recorded: the client
      // interceptors then put the start (and so the workflow) into that trace.
      return await withTraceCarrier(options.traceContext, () =>
        this.client.withDeadline(Date.now() + START_DEADLINE_MS, async () => {
          if (signal) {
            await this.client.workflow.signalWithStart<Workflow, unknown[]>(start.workflowType, {
              ...common,
              signal: signal.name,
              signalArgs: signal.args,
            });
            return 'started';
          }
          const handle = await this.client.workflow.start<Workflow>(start.workflowType, {
            ...common,
            requestEagerStart: this.canStartEagerly && how.eager,
          });
          return handle.eagerlyStarted ? 'eager' : 'started';
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'existing';
      throw err;
    }
  }
}

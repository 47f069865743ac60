/**
 * One start intent as stored in `workflow_starts`: plain JSON, so it survives the outbox and the
 * dispatcher needs nothing from the workflow's module to start it. Built by the typed `start`
 * that `workflowStarts` returns (src/modules/workflow-start.ts), in the feature module that owns
 * the workflow.
 */
export interface WorkflowStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  /**
   * Tells several requests for one workflow id apart: '' (the default) for the start itself,
   * the signal's name for a signal-with-start, a fresh id for a deliberate re-run (replay).
   */
  requestKey?: string;
  /**
   * The class this start is rationed by when work queues up (a webhook delivery: its seller).
   * The dispatcher claims pending intents round-robin across classes, and Temporal dispatches the
   * workflow's tasks the same way (its task-queue fairness key). Absent: the one class of every
   * start without a key (docs/webhooks.md, "Fairness"). Every request for one workflow id must
   * carry the same key: within a key, requests are claimed in the order written.
   */
  fairnessKey?: string;
  options?: WorkflowStartOptions;
}

export interface WorkflowStartOptions {
  /** REJECT_DUPLICATE (the default): a repeated or late start never opens a second run. */
  reusePolicy?: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE';
  searchAttributes?: StartSearchAttribute[];
  /**
   * The workflow's static summary (Web UI, `temporal workflow describe`): what it is and for
   * whom, in ids. Encrypted like any payload (docs/operations.md, "Finding workflows").
   */
  summary?: string;
  /** Signal-with-start: the signal is delivered to the running workflow, or it starts with it. */
  signal?: { name: string; args: unknown[] };
  /**
   * The trace of the request that asked for the start (W3C `traceparent`/`tracestate`), written
   * by `requestWorkflowStart` when tracing is on: the dispatcher starts the workflow inside it,
   * so the workflow's spans join that trace (docs/operations.md, "Tracing").
   */
  traceContext?: Record<string, string>;
}

/** A keyword search attribute set at start (the only kind the workflows use). */
export interface StartSearchAttribute {
  name: string;
  type: 'KEYWORD';
  value: string;
}

/** A keyword search attribute of a start, from its definition (src/domain/…/search-attributes.ts). */
export const keyword = (key: { name: string }, value: string): StartSearchAttribute => ({ name: key.name, type: 'KEYWORD', value });

/** A workflow function as the client side knows it: by its type alone, never its code. */
type WorkflowFunction = (input: never) => Promise<unknown>;

/**
 * The one way to build a start: `workflowStarts<typeof workflows>()` (a type-only import of
 * `workflows/index.ts`) returns a `start` whose workflow type is one of the exported workflow
 * functions and whose input is what that function takes, so a start cannot drift from its
 * workflow and no list of inputs is kept by hand. Every start rejects a duplicate id (a repeat or
 * a late retry is harmless) unless its options say otherwise.
 */
export function workflowStarts<W extends Record<string, WorkflowFunction>>() {
  return function start<T extends keyof W & string>(
    workflowType: T,
    workflowId: string,
    input: Parameters<W[T]>[0],
    options: WorkflowStartOptions = {},
    requestKey?: string,
  ): WorkflowStart {
    return {
      workflowType,
      workflowId,
      args: [input],
      options: { reusePolicy: 'REJECT_DUPLICATE', ...options },
      ...(requestKey ? { requestKey } : {}),
    };
  };
}

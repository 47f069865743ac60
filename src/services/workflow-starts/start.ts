/**
 * One start intent as stored in `workflow_starts`: plain JSON, so it survives the outbox and the
 * dispatcher needs nothing from the workflow's module to start it. Built by `starts.ts`, which
 * types the arguments from each workflow's signature.
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

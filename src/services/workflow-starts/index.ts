import type { EntityManager } from 'typeorm';
import { activeTraceCarrier } from '../../observability/trace-context';

export type { WorkflowStart, StartSearchAttribute } from './start';
import type { WorkflowStart } from './start';

/**
 * Records the intent to start `start.workflowId` in the caller's transaction: the workflow starts
 * (through the worker's dispatcher) if and only if the change it belongs to commits, and Temporal
 * being down delays it, never loses it. Repeating the same request — same workflow id and request
 * key — inserts nothing. Returns whether a new intent was written. With tracing on, the intent
 * also records the active trace, which the dispatcher continues when it makes the start.
 */
export async function requestWorkflowStart(tx: EntityManager, start: WorkflowStart): Promise<boolean> {
  return (await requestWorkflowStarts(tx, [start])) > 0;
}

/** `requestWorkflowStart` for many at once (one statement); returns how many were new. */
export async function requestWorkflowStarts(tx: EntityManager, starts: WorkflowStart[]): Promise<number> {
  if (starts.length === 0) return 0;
  const traceContext = activeTraceCarrier();
  const rows: unknown[] = await tx.query(
    `INSERT INTO workflow_starts (workflow_type, workflow_id, request_key, args, options, fairness_key)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::text[])
     ON CONFLICT (workflow_id, request_key) DO NOTHING
     RETURNING id`,
    [
      starts.map((s) => s.workflowType),
      starts.map((s) => s.workflowId),
      starts.map((s) => s.requestKey ?? ''),
      starts.map((s) => JSON.stringify(s.args)),
      starts.map((s) => JSON.stringify(traceContext ? { ...s.options, traceContext } : (s.options ?? {}))),
      starts.map((s) => s.fairnessKey ?? ''),
    ],
  );
  return rows.length;
}

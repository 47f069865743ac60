import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { WorkflowStart } from '../../src/services/workflow-starts/start';

/**
 * The Temporal start options a stored start intent stands for, whoever starts it: the start
 * outbox's executor (a client start) and a workflow starting children (`workflows/child-starts.ts`).
 * Plain data and `@temporalio/common` only, so workflow code may use it.
 */
export function startOptionsOf(start: WorkflowStart) {
  const options = start.options ?? {};
  return {
    workflowId: start.workflowId,
    args: start.args,
    workflowIdReusePolicy: options.reusePolicy ?? 'REJECT_DUPLICATE',
    ...(options.summary ? { staticSummary: options.summary } : {}),
    // Temporal dispatches the workflow's tasks (and its activities', which inherit it)
    // round-robin across fairness keys when the server has fairness enabled.
    ...(start.fairnessKey ? { priority: { fairnessKey: start.fairnessKey } } : {}),
    ...(options.searchAttributes
      ? {
          typedSearchAttributes: options.searchAttributes.map((a): SearchAttributePair => ({
            key: defineSearchAttributeKey(a.name, SearchAttributeType.KEYWORD),
            value: a.value,
          })),
        }
      : {}),
  } as const;
}

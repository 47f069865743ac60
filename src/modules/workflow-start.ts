import type * as workflows from '../../workflows';
import { workflowStarts } from '../services/workflow-starts/start';

/**
 * Builds a start of one of the exported workflow functions with the input that function takes:
 * the feature modules declare their workflows' ids and starts with it and hand them to the
 * services that request them (each service names the small port it needs). The import is
 * type-only, so the API never loads workflow code; it sits here, above the services, because a
 * service importing the workflows' types would close a cycle through the activities' types.
 */
export const start = workflowStarts<typeof workflows>();

/** What the exported workflow function `T` is started with (a Schedule's action states its arguments with it). */
export type WorkflowInput<T extends keyof typeof workflows> = Parameters<(typeof workflows)[T]>[0];

import { createOptimizerActivities } from '../../activities/optimizer';
import { wantsRoutes } from '../http/routes/wants';
import { wantsOptimizationRoutes } from '../http/routes/wants-optimizations';
import { OptimizationSolver } from '../services/wants/optimization-solver';
import { WantsOptimizations, type OptimizationStart } from '../services/wants/optimizations';
import { WantsExport } from '../services/wants/wants-export';
import { WantsImports } from '../services/wants/wants-import';
import { WantsLists } from '../services/wants/wants-lists';
import { PromptStarts } from '../temporal/prompt-starts';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the wants feature's routes use. */
export interface WantsServices {
  lists: WantsLists;
  imports: WantsImports;
  exports: WantsExport;
  optimizations: WantsOptimizations;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const wantsWorkflowIds = {
  optimization: (optimizationId: string) => `optimization:${optimizationId}`,
};

/** One solve per optimization, ever. */
const optimizationStart: OptimizationStart = (optimizationId, listId, timeLimitMs, taskQueue) =>
  start(
    'optimizationWorkflow',
    wantsWorkflowIds.optimization(optimizationId),
    { optimizationId, timeLimitMs, taskQueue },
    { summary: `Basket optimization ${optimizationId} of wants list ${listId}` },
  );

/**
 * Wants lists and their basket optimizer (docs/wants.md): the `/user/wants…` routes, and the
 * `optimization:{id}` workflow (workflows/optimization.ts, started through `optimizationStart`), whose solving activity runs on the optimizer's own task queue, served
 * by a Worker of its own so that CPU-bound work scales apart from everything else.
 */
export const wantsModule: FeatureModule<WantsServices> = {
  name: 'wants',
  tags: {
    'Wants lists':
      "Buyers' lists of the cards they look for, with what is on sale for each line; deck-list and CSV import, CSV export. See docs/wants.md.",
  },
  api: {
    services: ({ config, db, temporal, shared }) => {
      const lists = new WantsLists(db);
      const prompt = new PromptStarts(temporal, config.temporal.taskQueue);
      return {
        lists,
        imports: new WantsImports(db, lists),
        exports: new WantsExport(lists),
        optimizations: new WantsOptimizations(
          db,
          shared.baskets,
          optimizationStart,
          (intent, waitMs) => prompt.startAndWait(intent, waitMs),
          {
            waitMs: config.wants.waitMs,
            defaultTimeLimitMs: config.wants.defaultTimeLimitMs,
            taskQueue: config.wants.optimizerTaskQueue,
          },
        ),
      };
    },
    routes: (services) => [...wantsRoutes(services), ...wantsOptimizationRoutes(services)],
  },
  worker: {
    // Recording a failure runs on the main queue; solving on the optimizer's own.
    activities: ({ db }) => createOptimizerActivities({ optimizationSolver: new OptimizationSolver(db) }).recording,
    taskQueues: ({ config, db }) => [
      {
        taskQueue: config.wants.optimizerTaskQueue,
        activities: createOptimizerActivities({ optimizationSolver: new OptimizationSolver(db) }).solving,
        maxConcurrentActivities: config.wants.optimizerConcurrency,
      },
    ],
  },
};

import type { Config } from '../config';
import type { AnyRoute } from '../http/route';
import type { ModuleServices } from '../http/services';
import type { StartFeeder } from '../services/workflow-starts/dispatcher';
import type {
  ActivityFunctions,
  ApiModuleContext,
  FeatureModule,
  ModuleTaskQueue,
  ScheduleModuleContext,
  WorkerModuleContext,
} from './feature-module';
import { alertsModule } from './alerts';
import { priceGuideModule } from './price-guide';
import { offersModule } from './offers';
import { wantsModule } from './wants';

/**
 * Every feature module, in the order their routes appear in the OpenAPI document. The API's and
 * the worker's composition roots build what these declare; nothing of theirs is registered by hand.
 */
export const FEATURE_MODULES: readonly FeatureModule<object>[] = [
  wantsModule as FeatureModule<object>,
  priceGuideModule as FeatureModule<object>,
  alertsModule as FeatureModule<object>,
  offersModule as FeatureModule<object>,
];

export function createModuleServices(context: ApiModuleContext): ModuleServices {
  return Object.fromEntries(FEATURE_MODULES.flatMap((m) => (m.api ? [[m.name, m.api.services(context)]] : [])));
}

/** The modules' routes; without services (the OpenAPI export) each gets an empty object it only touches when called. */
export function moduleRoutes(services: ModuleServices | undefined, config: Config): AnyRoute[] {
  return FEATURE_MODULES.flatMap((m) => m.api?.routes(services?.[m.name] ?? {}, config) ?? []);
}

/** The modules' activities for the main task queue. */
export function moduleActivities(context: WorkerModuleContext): ActivityFunctions {
  return Object.assign({}, ...FEATURE_MODULES.map((m) => m.worker?.activities?.(context) ?? {})) as ActivityFunctions;
}

/** The task queues modules serve apart from the main one, each by a Worker of its own. */
export function moduleTaskQueues(context: WorkerModuleContext): ModuleTaskQueue[] {
  return FEATURE_MODULES.flatMap((m) => m.worker?.taskQueues?.(context) ?? []);
}

/** The modules' readers of the outboxes that feed the start dispatcher (worker/start-dispatcher.ts). */
export function moduleStartFeeders(context: WorkerModuleContext): Array<{ module: string; feed: StartFeeder }> {
  return FEATURE_MODULES.flatMap((m) => (m.worker?.startFeeders?.(context) ?? []).map((feed) => ({ module: m.name, feed })));
}

/** Creates or updates every module's Schedules (the worker's `keepSchedules`). */
export async function ensureModuleSchedules(context: ScheduleModuleContext): Promise<void> {
  await Promise.all(FEATURE_MODULES.map((m) => m.worker?.schedules?.(context)));
}

import type { Config } from '../config';
import type { AnyRoute } from '../http/route';
import type { ModuleServices } from '../http/services';
import type { StartFeeder } from '../services/workflow-starts/dispatcher';
import type {
  ActivityFunctions,
  ApiModuleContext,
  FeatureModule,
  ModuleTaskQueue,
  ModuleWorkflowQueue,
  ScheduleModuleContext,
  WorkerModuleContext,
} from './feature-module';
import { accountModule } from './account';
import { alertsModule } from './alerts';
import { casesModule } from './cases';
import { checkoutModule } from './checkout';
import { conversationsModule } from './conversations';
import { discoverModule } from './discover';
import { emailModule } from './email';
import { identityModule } from './identity';
import { listingsModule } from './listings';
import { moneyModule } from './money';
import { offersModule } from './offers';
import { ordersModule } from './orders';
import { priceGuideModule } from './price-guide';
import { reviewsModule } from './reviews';
import { sellersModule } from './sellers';
import { wantsModule } from './wants';
import { webhooksModule } from './webhooks';

/**
 * Every feature module, in the order their routes appear in the OpenAPI document. The API's and
 * the worker's composition roots build what these declare; nothing of theirs is registered by hand.
 */
export const FEATURE_MODULES: readonly FeatureModule<object>[] = [
  identityModule as FeatureModule<object>,
  accountModule as FeatureModule<object>,
  sellersModule as FeatureModule<object>,
  webhooksModule as FeatureModule<object>,
  listingsModule as FeatureModule<object>,
  discoverModule as FeatureModule<object>,
  checkoutModule as FeatureModule<object>,
  ordersModule as FeatureModule<object>,
  moneyModule as FeatureModule<object>,
  reviewsModule as FeatureModule<object>,
  casesModule as FeatureModule<object>,
  conversationsModule as FeatureModule<object>,
  wantsModule as FeatureModule<object>,
  priceGuideModule as FeatureModule<object>,
  alertsModule as FeatureModule<object>,
  offersModule as FeatureModule<object>,
  emailModule,
];

export function createModuleServices(context: ApiModuleContext): ModuleServices {
  return Object.fromEntries(FEATURE_MODULES.flatMap((m) => (m.api ? [[m.name, m.api.services(context)]] : [])));
}

/** What `module` built for its routes, typed (tests reach a feature's services this way). */
export function servicesOf<S extends object>(services: { modules: ModuleServices }, module: FeatureModule<S>): S {
  return services.modules[module.name] as S;
}

/** The OpenAPI tags the modules declare, with their descriptions (src/http/tags.ts adds the non-feature ones). */
export function moduleTags(): Record<string, string> {
  return Object.assign({}, ...FEATURE_MODULES.map((m) => m.tags ?? {})) as Record<string, string>;
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

/** The workflow task queues modules declare apart from the main one (`ModuleWorkflowQueue`). */
export function moduleWorkflowQueues(config: Config): ModuleWorkflowQueue[] {
  return FEATURE_MODULES.flatMap((m) => m.worker?.workflowQueues?.(config) ?? []);
}

/** The task queue of each workflow type started apart from the main queue. */
export function workflowTaskQueues(config: Config): Record<string, string> {
  return Object.fromEntries(moduleWorkflowQueues(config).flatMap((q) => q.workflowTypes.map((type) => [type, q.taskQueue])));
}

/** The modules' readers of the outboxes that feed the start dispatcher (worker/start-dispatcher.ts). */
export function moduleStartFeeders(context: WorkerModuleContext): Array<{ module: string; feed: StartFeeder }> {
  return FEATURE_MODULES.flatMap((m) => (m.worker?.startFeeders?.(context) ?? []).map((feed) => ({ module: m.name, feed })));
}

/** Creates or updates every module's Schedules (the worker's `keepSchedules`). */
export async function ensureModuleSchedules(context: ScheduleModuleContext): Promise<void> {
  await Promise.all(FEATURE_MODULES.map((m) => m.worker?.schedules?.(context)));
}

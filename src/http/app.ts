import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { ApiMetrics } from '../observability/api-metrics';
import { AnswerBuffers } from './answer-buffers';
import { asciiJsonBodies } from './middleware/ascii-json';
import { cors } from './middleware/cors';
import { problemErrors } from './middleware/errors';
import { httpMetrics } from './middleware/metrics';
import { requestContext } from './middleware/request-context';
import { httpTracing } from './middleware/tracing';
import { buildOpenApi } from './openapi';
import type { AnyRoute } from './route';
import { buildRouter, corsPaths, staticPathAllow } from './router';
import { oauthErrorBodies } from './oauth';
import { devRoutes } from './routes/dev';
import { problemPageRoutes } from './routes/problem-pages';
import { systemRoutes } from './routes/system';
import type { Services } from './services';
import { moduleRoutes } from '../modules';

/**
 * The route table: every route of the API, in the order the OpenAPI document lists them. The
 * features' routes come from their modules (src/modules, in `FEATURE_MODULES` order); only the
 * routes that belong to no feature are added here: problem pages, development helpers, system.
 */
export function routeTable(services: Services, config: Config): AnyRoute[] {
  let openApi: Record<string, unknown> | undefined;
  const routes: AnyRoute[] = [
    ...moduleRoutes(services.modules, config),
    ...problemPageRoutes(),
    ...(config.env === 'development' ? devRoutes(services) : []),
  ];
  // The document describes the API routes and the system routes alike; it is built once, lazily.
  const all: AnyRoute[] = [...routes, ...systemRoutes(services, () => (openApi ??= buildOpenApi(all, config.publicBaseUrl)))];
  return all;
}

/**
 * At most this much of reused answer buffers waits between requests (a bulk lookup's answer takes
 * 256 kB); it is part of the API's 64 MiB beyond Discover's cache budget (docs/discover.md, "Memory").
 */
const ANSWER_BUFFERS_KEPT_BYTES = 8 * 1024 * 1024;

/** `options.tracing`: a SERVER span per request (only when the process started tracing). */
export function createApp(
  services: Services,
  config: Config,
  logger: Logger,
  metrics?: ApiMetrics,
  options: { tracing?: boolean } = {},
): Koa {
  const app = new Koa();
  app.proxy = true;
  const routes = routeTable(services, config);
  const router = buildRouter(routes, {
    authenticator: services.authenticator,
    idempotencyKeys: services.idempotencyKeys,
    isActiveSeller: (userId) => services.sellers.isActiveSeller(userId),
    isOperator: (userId) => services.operatorRoles.isOperator(userId),
    validateResponses: config.http.validateResponses,
    logger,
    answerBuffers: new AnswerBuffers(ANSWER_BUFFERS_KEPT_BYTES),
  });
  if (options.tracing) app.use(httpTracing());
  if (metrics) app.use(httpMetrics(metrics));
  app.use(requestContext(logger));
  app.use(asciiJsonBodies());
  // Outside problemErrors, so error answers carry Allow-Origin too; preflights never reach auth.
  app.use(cors(config.http.cors, corsPaths(routes, router)));
  app.use(problemErrors());
  app.use(oauthErrorBodies(new Set(routes.filter((r) => r.errors === 'oauth').map((r) => r.path))));
  app.use(
    koaBody({
      json: true,
      urlencoded: true,
      text: false,
      multipart: false,
      jsonStrict: true,
      jsonLimit: config.http.jsonBodyLimit,
      formLimit: '16kb',
      // DELETE included: the spec deletes personal access tokens by a name in the body.
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    }),
  );
  app.use(staticPathAllow(routes));
  app.use(router.routes());
  // Not throwing: the router then sets `Allow`, and problemErrors turns its bare 405/501 into a
  // problem (docs/conventions.md, "Methods").
  app.use(router.allowedMethods());
  // Errors are answered by problemErrors; this only keeps Koa from printing them a second time.
  app.silent = true;
  return app;
}

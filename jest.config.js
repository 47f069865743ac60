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

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(ts|js)$': swc },
  // jose and oauth4webapi are ESM-only; Node 20 loads jose natively at run time, but Jest needs both compiled.
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Temporal test servers and Postgres databases are per file; two cores, two workers.
  maxWorkers: 2,
  testTimeout: 60_000,
};

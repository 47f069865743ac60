import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import supertest from 'supertest';
import { createServices } from '../../src/composition';
import { loadConfig, type Config } from '../../src/config';
import { createApp } from '../../src/http/app';
import { createApiServer } from '../../src/http/server';
import type { Services } from '../../src/http/services';
import { createLogger, type Logger } from '../../src/logger';
import { createApiMetrics, registerDbPoolMetrics, registerReplicaMetrics, type ApiMetrics } from '../../src/observability/api-metrics';
import { apiClient, dataOf, expectStatus } from './client';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestApi {
  http: supertest.Agent;
  baseUrl: string;
  config: Config;
  services: Services;
  /** The app's instruments, as `src/main.ts` wires them (a registry per test API). */
  metrics: ApiMetrics;
  database: TestDatabase;
  close(): Promise<void>;
}

/** Environment every test API runs with; cheap password hashing keeps registration fast. */
export function testEnv(databaseUrl: string, overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SCRYPT_LOG_N: '10',
    // Tests read their own writes at once; the Discover cache has its own tests that turn it on.
    DISCOVER_CACHE_MS: '0',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    // Test processes never take the fixed metrics and codec ports: files (and machines' other
    // test runs) run side by side; a test that scrapes starts its own listener on port 0.
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    CODEC_PORT: '0',
    ...overrides,
  };
}

/**
 * The real app over real HTTP on an ephemeral port, against a fresh database. Without a
 * Temporal client it gets a lazy connection to nowhere: workflow starts wait in the start
 * outbox (no dispatcher runs here), case Updates answer 503 at once, everything else works.
 */
export async function startTestApi(
  options: { temporal?: Client; env?: Record<string, string>; database?: TestDatabase; log?: Logger; tracing?: boolean } = {},
): Promise<TestApi> {
  const database = options.database ?? (await createTestDatabase());
  // Listening first lets the app know its own address: PUBLIC_BASE_URL is the OAuth issuer,
  // which clients compare with the URL they discovered it at.
  const server: Server = createApiServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const config = loadConfig(
    testEnv(database.url, {
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      // Workers and dispatchers built from this configuration use the client's namespace (each
      // test file has its own on the run's dev server, see `devServerEnv`).
      ...(options.temporal ? { TEMPORAL_NAMESPACE: options.temporal.options.namespace } : {}),
      ...options.env,
    }),
  );
  // Without the SDK's retry interceptor: a call to nowhere fails at once (UNAVAILABLE, as the
  // retries end) instead of retrying until the app's own deadline, 10 s for a case Update.
  const temporal = options.temporal ?? new Client({ connection: Connection.lazy({ address: '127.0.0.1:9', interceptors: [] }) });
  const services = createServices(config, database.db, temporal);
  const metrics = createApiMetrics();
  registerDbPoolMetrics(metrics.registry, database.db, 'api');
  registerReplicaMetrics(metrics.registry, services.readRouter);
  const app = createApp(services, config, options.log ?? createLogger(config.logLevel, 'api-test'), metrics, { tracing: options.tracing });
  server.on('request', app.callback());
  return {
    http: supertest.agent(server),
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    services,
    metrics,
    database,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
      // The connection to nowhere is this function's own: closed here, or its channel outlives the file.
      if (!options.temporal) await temporal.connection.close();
      if (!options.database) await database.close();
    },
  };
}

let counter = 0;

export interface TestUser {
  id: string;
  email: string;
  username: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  bearer: { Authorization: string };
}

/** Registers a new, unique user through the API (the generated client). */
export async function registerUser(api: TestApi, prefix = 'user'): Promise<TestUser> {
  counter += 1;
  const username = `${prefix}${process.pid}x${counter}`;
  const email = `${username}@example.test`;
  const password = 'correct horse battery staple';
  const registered = await dataOf(apiClient(api).POST('/auth/register', { body: { email, username, password } }), 201);
  return {
    id: registered.user.id,
    email,
    username,
    password,
    accessToken: registered.accessToken,
    refreshToken: registered.refreshToken,
    bearer: { Authorization: `Bearer ${registered.accessToken}` },
  };
}

/** Registers a user and onboards them as a seller. */
export async function registerSeller(api: TestApi, prefix = 'seller'): Promise<TestUser> {
  const user = await registerUser(api, prefix);
  await expectStatus(apiClient(api, user.bearer).POST('/seller'), 201);
  return user;
}

/** A user with the operator role, granted through the service the `npm run operators` CLI uses. */
export async function registerOperator(api: TestApi, prefix = 'operator'): Promise<TestUser> {
  const user = await registerUser(api, prefix);
  await api.services.operatorRoles.grant(user.username, 'test');
  return user;
}

import 'reflect-metadata';
import { DataSource, MigrationExecutor } from 'typeorm';
import { entities } from './entities';
import { migrations } from './migrations';

export interface DataSourceOptions {
  url: string;
  /** Pool size; the API and the worker each hold their own pool. */
  poolSize?: number;
  applicationName?: string;
  /** How long opening a connection may take before the query fails; unbounded when unset (pg's default). */
  connectTimeoutMs?: number;
}

export function createDataSource({ url, poolSize = 10, applicationName = 'marketplace', connectTimeoutMs }: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    // PostgreSQL's JIT compiles any plan estimated above jit_above_cost. On a large catalog
    // that includes searches that count or order all of a name's matches (the planner
    // overestimates them about fourfold and charges a market-row probe for each), and compiling
    // cost more than the statement saved: price search p50 35 -> 27 ms on 1M items with it off
    // (docs/operations.md, "PostgreSQL settings").
    extra: {
      max: poolSize,
      application_name: applicationName,
      options: '-c jit=off',
      ...(connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: connectTimeoutMs }),
    },
  });
}

/** Arbitrary constant naming this application's migration lock. */
const MIGRATION_LOCK_KEY = 7_121_968;

/**
 * Connects and brings the schema up to date; used by the API, the worker and `npm run migrate`.
 * A session advisory lock serialises processes starting together (API and worker replicas), so
 * only one applies a migration and the others then find nothing left to do.
 */
export async function connectAndMigrate(options: DataSourceOptions): Promise<DataSource> {
  const ds = createDataSource(options);
  await ds.initialize();
  // Migrations run on the session that holds the lock (a pool of one connection suffices).
  const session = ds.createQueryRunner();
  try {
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const executor = new MigrationExecutor(ds, session);
    executor.transaction = 'each';
    await executor.executePendingMigrations();
    await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  } finally {
    await session.release();
  }
  return ds;
}

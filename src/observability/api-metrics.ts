import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { REPLICA_STATES, type ReadRouter } from '../db/read-router';

/** The API's instruments (each listed in docs/operations.md). */
export interface ApiMetrics {
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status'>;
  inFlight: Gauge;
}

/** Seconds; spans a cached Discover answer (~1 ms) to a slow PDF or import upload. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createApiMetrics(registry = new Registry()): ApiMetrics {
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to its answer, by route template (not path, so ids do not multiply series).',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'http_requests_in_flight',
      help: 'Requests being handled right now.',
      registers: [registry],
    }),
  };
}

/** The part of pg's Pool these gauges read. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Connection pool use, read at scrape time from the pg Pool under TypeORM: `in_use` near `max`
 * with `waiting` above zero means the pool, not Postgres, is what requests queue on.
 */
export function registerDbPoolMetrics(registry: Registry, db: DataSource, processName: string): void {
  const poolSize = (db.options.extra as { max?: number } | undefined)?.max ?? 10;
  const pool = () => (db.driver as unknown as { master?: PoolCounts }).master;
  const gauge = (name: string, help: string, read: (p: PoolCounts) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['process'],
      registers: [registry],
      collect() {
        const p = pool();
        this.set({ process: processName }, p ? read(p) : 0);
      },
    });
  gauge('db_pool_connections_in_use', 'Pool connections checked out by a query or transaction.', (p) => p.totalCount - p.idleCount);
  gauge('db_pool_connections_idle', 'Open pool connections waiting for work.', (p) => p.idleCount);
  gauge('db_pool_waiting_requests', 'Queries waiting for a free pool connection.', (p) => p.waitingCount);
  new Gauge({ name: 'db_pool_connections_max', help: 'The pool size.', labelNames: ['process'], registers: [registry] }).set(
    { process: processName },
    poolSize,
  );
}

/**
 * Each replica's lag and state (docs/replicas.md), read at scrape time from the router's last
 * check: a replica serves reads while its `db_replica_state{state="healthy"}` is 1.
 */
export function registerReplicaMetrics(registry: Registry, router: ReadRouter): void {
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'How long the oldest change a replica has not replayed has existed on the primary; 0 when it has replayed everything.',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of router.status()) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'db_replica_state',
    help: 'A replica state (healthy, lagging, down): 1 for the one it is in, 0 for the others.',
    labelNames: ['replica', 'state'],
    registers: [registry],
    collect() {
      for (const r of router.status()) for (const state of REPLICA_STATES) this.set({ replica: r.name, state }, r.state === state ? 1 : 0);
    },
  });
  new Counter({
    name: 'db_routed_reads_total',
    help: 'Reads the read router sent to each database: `primary`, or a replica by name.',
    labelNames: ['database'],
    registers: [registry],
    collect() {
      // The router counts; the counter shows its totals.
      this.reset();
      for (const [database, n] of router.routed()) this.inc({ database }, n);
    },
  });
}

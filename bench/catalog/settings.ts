import { randomBytes } from 'node:crypto';
import { discoverCacheBudgetBytes } from '../../src/composition';
import { loadConfig, type Config } from '../../src/config';
import { TRIM_AFTER_IDLE_MS } from '../../src/http/young-generation-trim';

/** Sizes and fixed inputs of the catalog benchmark, shared by the generator, server and runner. */
export const BENCH = {
  /** Synthetic copies of each of the 5 real sets: 644 × 156 + 644 = 101,108 items. */
  copies: 156,
  sellers: 1000,
  listings: 520_000,
  popularUrn: 'pokemon/base/base1/4',
  popularListings: 2000,
  connections: 50,
  /** Overridable for a quick smoke run of the script; reported figures use the defaults. */
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  roundSeconds: Number(process.env.BENCH_ROUND_SECONDS ?? 5),
  /** How long the cached API serves a varied workload before it is measured (fresh draws). */
  apiWarmSeconds: Number(process.env.BENCH_API_WARM_SECONDS ?? 20),
  /** Comma-separated parts of scenario names, to measure only those (a quick comparison); reported figures run all. */
  scenarios: process.env.BENCH_SCENARIOS?.split(',') ?? [],
  apiPort: Number(process.env.BENCH_API_PORT ?? 3710),
  baselinePort: Number(process.env.BENCH_BASELINE_PORT ?? 3711),
  /** The same API with DISCOVER_CACHE_MS=0: every request reads the database. */
  uncachedApiPort: Number(process.env.BENCH_UNCACHED_API_PORT ?? 3712),
  /** A bare node:http server with fixed bytes: the machine's floor (run.ts measureFloor). */
  floorPort: Number(process.env.BENCH_FLOOR_PORT ?? 3713),
};

export const benchDatabaseUrl = () => process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_catalog';

/** The API's configuration as server.ts runs it: production settings (no per-response schema validation, quiet logs). */
export function benchApiConfig(target: 'api' | 'uncached'): Config {
  return loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: benchDatabaseUrl(),
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    // Production requires payload keys; Discover never sends a payload, any key does.
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    ...(target === 'uncached' ? { DISCOVER_CACHE_MS: '0' } : {}),
  });
}

/**
 * Seconds after the API's last request by which it has trimmed its young generation (two
 * collections TRIM_AFTER_IDLE_MS apart, src/http/young-generation-trim.ts), with time to spare:
 * when the benchmarks read its RSS the second time.
 */
export const QUIET_SECONDS = (2 * TRIM_AFTER_IDLE_MS) / 1000 + 4;

/** The memory target: the API's RSS at the end ≤ idle + Discover's cache budget as the API runs it + this, in MiB. */
export const RSS_SLACK_MB = 64;

/** Discover's cache budget as the API runs it (docs/discover.md, "How much is kept"), in MiB. */
export const cacheBudgetMb = () => discoverCacheBudgetBytes(benchApiConfig('api')) / 1048576;

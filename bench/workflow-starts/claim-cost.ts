/**
 * What one claim of each outbox costs as its backlog grows: the start dispatcher's claim of
 * `workflow_starts` and the webhook fan-out's claim of `outbox_events`, as the code runs them,
 * beside the ranking they replaced (a window over every pending row, with the index it ranked
 * from), on the same rows in the same run. The backlogs: one seller's burst of N rows beside 50
 * other sellers with 20 each, and no burst but 5,000 sellers with 2 or 20 each (the walk's worst
 * case: one index probe per seller), behind 200,000 rows already handled. Each claim runs in a
 * transaction that is rolled back, so every measurement sees the same backlog.
 *
 *   node -r ts-node/register bench/workflow-starts/claim-cost.ts   (BENCH_CLAIMS: claims per cell)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { adminQuery, cpuShare, cpuTicks, percentile } from '../support';
import { connectAndMigrate } from '../../src/db/data-source';
import { CLAIM_EVENTS } from '../../src/services/webhooks/fan-out';
import { CLAIM_STARTS } from '../../src/services/workflow-starts/dispatcher';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'mts_bench_claims';
const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 40);
const BATCH = 25;
const HANDLED = 200_000;
/** Pending rows: one seller's burst, and `sellers` others with `each` rows. */
const BACKLOGS = [
  { burst: 1_000, sellers: 50, each: 20 },
  { burst: 10_000, sellers: 50, each: 20 },
  { burst: 100_000, sellers: 50, each: 20 },
  { burst: 0, sellers: 5_000, each: 2 },
  { burst: 0, sellers: 5_000, each: 20 },
];
type Backlog = (typeof BACKLOGS)[number];
const describeBacklog = (b: Backlog) =>
  `${b.burst ? `${b.burst.toLocaleString('en')} of one seller + ` : ''}${b.sellers.toLocaleString('en')} sellers × ${b.each}`;

/** The claims before the round-robin walk (git show 0f86214:src/services/…), and their index. */
const PREVIOUS = {
  starts: `WITH ranked AS (
      SELECT id, row_number() OVER (PARTITION BY fairness_key ORDER BY id) AS turn
        FROM workflow_starts
       WHERE started_at IS NULL AND next_attempt_at <= now()
       ORDER BY turn, id
       LIMIT $1 * 4)
    SELECT w.id, w.workflow_type, w.workflow_id, w.request_key, w.args, w.options, w.fairness_key
      FROM ranked r JOIN workflow_starts w ON w.id = r.id
     WHERE w.started_at IS NULL AND w.next_attempt_at <= now()
     ORDER BY r.turn, r.id
     LIMIT $1
       FOR UPDATE OF w SKIP LOCKED`,
  events: `WITH ranked AS (
      SELECT id, created_at, row_number() OVER (PARTITION BY seller_id ORDER BY created_at, id) AS turn
        FROM outbox_events
       WHERE dispatched_at IS NULL
       ORDER BY turn, created_at, id
       LIMIT $1 * 4),
    batch AS (
      SELECT o.id, o.seller_id, o.type FROM ranked r JOIN outbox_events o ON o.id = r.id
       WHERE o.dispatched_at IS NULL
       ORDER BY r.turn, r.created_at, r.id
       LIMIT $1
         FOR UPDATE OF o SKIP LOCKED)
    SELECT b.id AS event_id, b.seller_id, b.type, e.id AS endpoint_id
      FROM batch b
      LEFT JOIN webhook_endpoints e ON e.seller_id = b.seller_id AND e.enabled AND b.type = ANY (e.subscriptions)`,
};

/**
 * Each side runs with its own indexes only (the previous ranking would otherwise read the new
 * index, whose order suits its window): those of migration 1733530000000 and those it dropped.
 */
const INDEXES = {
  current: [
    `CREATE INDEX workflow_starts_fair_pending_idx ON workflow_starts (fairness_key, id) INCLUDE (next_attempt_at) WHERE started_at IS NULL`,
    `CREATE INDEX outbox_events_fair_pending_idx ON outbox_events (seller_id, created_at, id) WHERE dispatched_at IS NULL`,
  ],
  previous: [
    `CREATE INDEX workflow_starts_pending_idx ON workflow_starts (next_attempt_at, id) WHERE started_at IS NULL`,
    `CREATE INDEX outbox_events_pending_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL`,
  ],
};
const ALL_INDEXES = [
  'workflow_starts_fair_pending_idx',
  'outbox_events_fair_pending_idx',
  'workflow_starts_pending_idx',
  'outbox_events_pending_idx',
];

async function useIndexes(db: DataSource, side: keyof typeof INDEXES): Promise<void> {
  for (const name of ALL_INDEXES) await db.query(`DROP INDEX IF EXISTS ${name}`);
  for (const sql of INDEXES[side]) await db.query(sql);
  await db.query(`ANALYZE workflow_starts`);
  await db.query(`ANALYZE outbox_events`);
}

const CLAIMS_MEASURED = [
  { name: 'start dispatcher (workflow_starts)', current: CLAIM_STARTS, previous: PREVIOUS.starts },
  { name: 'webhook fan-out (outbox_events)', current: CLAIM_EVENTS, previous: PREVIOUS.events },
];

/** Replaces both outboxes' rows with the handled history and the backlog's pending rows. */
async function fill(db: DataSource, { burst, sellers, each }: Backlog): Promise<void> {
  await db.query(`TRUNCATE workflow_starts, outbox_events CASCADE`);
  const rows = `SELECT g, CASE WHEN g <= ${HANDLED} THEN 'handled-' || (g % 300)
                              WHEN g <= ${HANDLED + burst} THEN 'burst'
                              ELSE 'other-' || (g % ${sellers}) END AS seller
                  FROM generate_series(1, ${HANDLED + burst + sellers * each}) g`;
  await db.query(
    `INSERT INTO workflow_starts (workflow_type, workflow_id, args, fairness_key, started_at, next_attempt_at)
     SELECT 'webhookDeliveryWorkflow', 'webhook:' || g, '[{"eventId": "e"}]', seller,
            CASE WHEN g <= ${HANDLED} THEN now() END, now() - interval '1 minute'
       FROM (${rows}) r`,
  );
  // Sellers as uuids: md5 of the seller's label, so the burst and the others keep their identity.
  await db.query(
    `INSERT INTO outbox_events (id, seller_id, type, data, created_at, dispatched_at)
     SELECT gen_random_uuid(), md5(seller)::uuid, 'LISTING_CREATED', '{"listingId": "l"}',
            now() - interval '1 hour' + g * interval '1 millisecond', CASE WHEN g <= ${HANDLED} THEN now() END
       FROM (${rows}) r`,
  );
  await db.query(`VACUUM ANALYZE workflow_starts`);
  await db.query(`VACUUM ANALYZE outbox_events`);
}

/** Milliseconds per claim, measured from this client, each in a transaction rolled back. */
async function time(db: DataSource, sql: string): Promise<number> {
  const runner = db.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    const started = process.hrtime.bigint();
    const rows: unknown[] = await runner.query(sql, [BATCH]);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await runner.rollbackTransaction();
    if (rows.length < BATCH) throw new Error(`claim returned ${rows.length} rows, expected ${BATCH}`);
    return ms;
  } finally {
    await runner.release();
  }
}

/** The indexes the plan reads (EXPLAIN without running it). */
async function indexesUsed(db: DataSource, sql: string): Promise<string> {
  const [{ 'QUERY PLAN': plan }] = await db.query(`EXPLAIN (FORMAT JSON) ${sql.replaceAll('$1', String(BATCH))}`);
  const names = new Set<string>();
  const walk = (node: Record<string, unknown>) => {
    if (typeof node['Index Name'] === 'string') names.add(node['Index Name']);
    for (const child of (node.Plans as Array<Record<string, unknown>>) ?? []) walk(child);
  };
  walk(plan[0].Plan);
  return [...names].sort().join(', ') || 'none (sequential scan)';
}

async function main(): Promise<void> {
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await adminQuery(ADMIN_URL, `CREATE DATABASE ${DB_NAME}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DB_NAME}`;
  const db = await connectAndMigrate({ url: url.toString() });
  const lines: string[] = [];
  const ticks = cpuTicks();
  try {
    for (const backlog of BACKLOGS) {
      await fill(db, backlog);
      const samples = CLAIMS_MEASURED.map(() => ({ current: [] as number[], previous: [] as number[] }));
      const plans = CLAIMS_MEASURED.map(() => ({ current: '', previous: '' }));
      // Two rounds of each side, so drift in the host affects both alike; one warm-up claim each.
      for (const side of ['previous', 'current', 'previous', 'current'] as const) {
        await useIndexes(db, side);
        for (const [n, claim] of CLAIMS_MEASURED.entries()) {
          await time(db, claim[side]);
          for (let i = 0; i < CLAIMS / 2; i++) samples[n]![side].push(await time(db, claim[side]));
          plans[n]![side] = await indexesUsed(db, claim[side]);
        }
      }
      for (const [n, claim] of CLAIMS_MEASURED.entries()) {
        const cell = (s: number[]) => {
          const sorted = [...s].sort((a, b) => a - b);
          return `${percentile(sorted, 50).toFixed(1)} / ${percentile(sorted, 99).toFixed(1)}`;
        };
        lines.push(
          `| ${claim.name} | ${describeBacklog(backlog)} | ${cell(samples[n]!.current)} | ` +
            `${cell(samples[n]!.previous)} | ${plans[n]!.current} | ${plans[n]!.previous} |`,
        );
        console.log(lines.at(-1));
      }
    }
  } finally {
    await db.destroy();
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  }
  const cpus = os.cpus();
  const out = [
    '# Outbox claims: cost per pass as the backlog grows',
    '',
    `Run ${new Date().toISOString()} on ${cpus.length} CPU(s) (${cpus[0]?.model.trim()}), PostgreSQL on 127.0.0.1, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end; CPU time during the run: ${cpuShare(ticks, cpuTicks())}.`,
    '',
    `One claim of a batch of ${BATCH} (what one pass of the dispatcher or the fan-out reads and locks), timed from the client, ` +
      `in a transaction rolled back; ${CLAIMS} claims per cell, in two rounds per side, each side with only its own indexes. Pending rows as the table says, ` +
      `behind ${HANDLED.toLocaleString('en')} rows already handled. ` +
      '"now" is the round-robin walk (src/db/round-robin.ts); "before" is the window over every pending row it replaced, ' +
      'with the indexes it ranked from. Latencies in ms, p50 / p99.',
    '',
    '| claim | pending rows (sellers × rows each) | now p50 / p99 | before p50 / p99 | indexes now | indexes before |',
    '|---|---:|---:|---:|---|---|',
    ...lines,
    '',
    'Reproduce with `node -r ts-node/register bench/workflow-starts/claim-cost.ts`.',
    '',
  ];
  const file = path.resolve(__dirname, '../results/outbox-claims.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, out.join('\n'));
  console.log(`written ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

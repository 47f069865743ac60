// Conversations benchmark. `node -r ts-node/register bench/conversations/run.ts`
// Builds its own database (BENCH_DATABASE_URL, default mts_bench_conversations on the local
// PostgreSQL): 1,000 users, 10,000 conversations with 100 messages each (1,000,000 messages);
// one registered user takes part in 2,000 of them. Then, in the same run, autocannon at 50
// connections against the real API and against a one-SQL-per-route baseline: the inbox (first
// page), one conversation's message list (first page) and the unread total. Writes
// bench/results/conversations.md and drops the database unless BENCH_KEEP=1.
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { latency, runLoad, settle } from '../load';
import { adminQuery, endsWithBench, cpuShare, cpuTicks, rssAtEnd } from '../support';
import { connectAndMigrate } from '../../src/db/data-source';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_conversations';
const USERS = 1_000;
// Smaller sizes (BENCH_CONVERSATIONS, BENCH_MESSAGES_EACH) only to check the script itself.
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10_000);
const PER_CONVERSATION = Number(process.env.BENCH_MESSAGES_EACH ?? 100);
const HEAVY_USER_CONVERSATIONS = 2_000;
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const API_PORT = 39_421;
const BASELINE_PORT = 39_422;

const admin = (sql: string) => adminQuery(DATABASE_URL, sql);
const dbName = () => new URL(DATABASE_URL).pathname.slice(1);

function start(mode: 'api' | 'baseline', port: number): Promise<ChildProcess> {
  const child = endsWithBench(
    fork(path.join(__dirname, 'server.ts'), [mode, String(port), DATABASE_URL], { execArgv: ['-r', 'ts-node/register'] }),
  );
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

/**
 * The data, in SQL. Message ids are UUID v7 built from their timestamps (as the service makes
 * them), so "newest first" by id is what it is in production.
 */
async function seed(c: Client, heavyUserId: string): Promise<void> {
  await c.query(`
    CREATE FUNCTION bench_uuid7(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
      SELECT (lpad(to_hex((extract(epoch FROM ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
              || '8' || substr(md5(random()::text), 1, 15))::uuid $$`);
  await c.query(
    `INSERT INTO users (id, email, username, password_hash)
     SELECT gen_random_uuid(), 'bench' || n || '@bench.test', 'bench' || n, 'x' FROM generate_series(1, $1::int) n`,
    [USERS],
  );
  await c.query(`CREATE TEMP TABLE bench_users AS SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM users WHERE id <> $1`, [
    heavyUserId,
  ]);
  // Conversation g: the heavy user and user g for the first 2,000; two other users after that.
  await c.query(
    `INSERT INTO conversations (id, source_type, source_id, user_a_id, user_b_id, created_at, updated_at)
     SELECT gen_random_uuid(), 'ORDER', gen_random_uuid(),
            CASE WHEN g <= $2 THEN $1::uuid ELSE a.id END, b.id, now() - interval '30 days', now()
       FROM generate_series(1, $3::int) g
       JOIN bench_users a ON a.n = g % $4 JOIN bench_users b ON b.n = (g * 7 + 1) % $4
      WHERE a.id <> b.id OR g <= $2`,
    [heavyUserId, HEAVY_USER_CONVERSATIONS, CONVERSATIONS, USERS],
  );
  await c.query(
    `CREATE TEMP TABLE bench_conversations AS SELECT id, user_a_id, user_b_id, row_number() OVER (ORDER BY id) AS k FROM conversations`,
  );
  // Messages one minute apart, alternating senders; a conversation's latest is spread over the last 10,000 minutes.
  await c.query(
    `INSERT INTO messages (id, conversation_id, sender_id, body, created_at, viewed_at)
     SELECT bench_uuid7(t), c.id, CASE WHEN i % 2 = 0 THEN c.user_a_id ELSE c.user_b_id END,
            'Message ' || i || ' about the order: is it still available, and can you ship it tomorrow?', t, t + interval '1 minute'
       FROM bench_conversations c, generate_series(1, $1::int) i, LATERAL (SELECT now() - make_interval(mins => c.k::int + ($1 - i) * 10) AS t) ts`,
    [PER_CONVERSATION],
  );
  await c.query(`
    UPDATE conversations c SET last_message_id = m.id, updated_at = m.created_at
      FROM (SELECT DISTINCT ON (conversation_id) conversation_id, id, created_at FROM messages ORDER BY conversation_id, id DESC) m
     WHERE m.conversation_id = c.id`);
  await c.query(`
    INSERT INTO conversation_participants (conversation_id, user_id, other_user_id, unread_count, last_activity_at)
    SELECT c.id, u.me, u.other, (c.user_b_id = u.me)::int * 3, c.updated_at
      FROM conversations c, LATERAL (VALUES (c.user_a_id, c.user_b_id), (c.user_b_id, c.user_a_id)) u(me, other)`);
  await c.query(`INSERT INTO inbox_versions (user_id, version) SELECT id, 1 FROM users`);
  await c.query('ANALYZE');
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${dbName()}`);
  const ds = await connectAndMigrate({ url: DATABASE_URL, poolSize: 1 });
  await ds.destroy();
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  const children = [await start('api', API_PORT), await start('baseline', BASELINE_PORT)];
  try {
    const api = `http://127.0.0.1:${API_PORT}`;
    const reg = await fetch(`${api}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'heavy@bench.test', username: 'heavyuser', password: 'bench-password-123' }),
    });
    const registered = (await reg.json()) as { user: { id: string }; accessToken: string };
    const heavy = registered.user.id;
    const headers = { Authorization: `Bearer ${registered.accessToken}` };
    let t = Date.now();
    await seed(c, heavy);
    const [{ messages }] = (await c.query(`SELECT count(*)::int AS messages FROM messages`)).rows;
    const [{ conversations }] = (await c.query(`SELECT count(*)::int AS conversations FROM conversations`)).rows;
    const [{ id: conversationId }] = (
      await c.query(`SELECT conversation_id AS id FROM conversation_participants WHERE user_id = $1 LIMIT 1`, [heavy])
    ).rows;
    // The heavy user has read the benchmarked conversation, so reading it is a pure read (as a poller's would be).
    await c.query(`UPDATE conversation_participants SET unread_count = 0 WHERE conversation_id = $1`, [conversationId]);
    console.log(`seeded ${conversations} conversations, ${messages} messages in ${Date.now() - t} ms`);

    const scenarios = [
      { name: `inbox, first page of 20 (of ${HEAVY_USER_CONVERSATIONS})`, api: `${api}/conversations`, base: `/inbox/${heavy}` },
      {
        name: `message list, first page of 20 (of ${PER_CONVERSATION})`,
        api: `${api}/conversations/${conversationId}/messages`,
        base: `/messages/${conversationId}`,
      },
      { name: 'unread total', api: `${api}/conversations/unread`, base: `/unread/${heavy}` },
    ];
    const rows: string[] = [];
    const loadBefore = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ');
    const ticks = cpuTicks();
    for (const s of scenarios) {
      const check = await fetch(s.api, { headers });
      if (!check.ok) throw new Error(`${s.api}: ${check.status} ${await check.text()}`);
      const measure = async (url: string, h: Record<string, string>) => {
        await runLoad({ url, method: 'GET', headers: h, connections: CONNECTIONS, durationSeconds: 3 }); // warm-up
        await settle();
        return runLoad({ url, method: 'GET', headers: h, connections: CONNECTIONS, durationSeconds: DURATION_S });
      };
      t = Date.now();
      const real = await measure(s.api, headers);
      const base = await measure(`http://127.0.0.1:${BASELINE_PORT}${s.base}`, {});
      const cells = [
        s.name,
        real.rps.toFixed(0),
        latency(real),
        `${((100 * real.rps) / base.rps).toFixed(0)} %`,
        base.rps.toFixed(0),
        latency(base),
        real.errors + base.errors,
      ];
      const line = `| ${cells.join(' | ')} |`;
      console.log(line, `(${Date.now() - t} ms)`);
      rows.push(line);
    }
    const report = [
      '# Conversations benchmark',
      '',
      `Run ${new Date().toISOString()} on this machine (${os.cpus().length} cores, shared with other work), PostgreSQL 15 on localhost.`,
      `${conversations} conversations, ${messages} messages (${PER_CONVERSATION} each) among ${USERS + 1} users; the measured user is in ${HEAVY_USER_CONVERSATIONS} of them.`,
      `autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per measurement after a 3 s warm-up; each target in its own process with a pool of ${10}.`,
      'Latencies in ms. The API runs with production settings (no response validation) and authenticates every request (JWT).',
      rssAtEnd(
        [
          ['API', children[0]!.pid],
          ['baseline', children[1]!.pid],
        ],
        'no worker runs in this bench',
      ),
      `Load average (1 / 5 / 15 min) ${loadBefore} before and ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} after the measurements; CPU time during them: ${cpuShare(ticks, cpuTicks())}.`,
      '',
      '| scenario | API req/s | API p50 / p99 | vs baseline | baseline req/s | baseline p50 / p99 | errors |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      'Baseline: a bare Koa app without auth or validation answering each route with one SQL statement through `pg` that builds',
      "the same JSON (bench/conversations/baseline-sql.ts); its unread total sums every time, the API's is cached per inbox version.",
      '',
    ].join('\n');
    writeFileSync(path.join(__dirname, '../results/conversations.md'), report);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await c.end();
    if (process.env.BENCH_KEEP !== '1') await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

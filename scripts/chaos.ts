// `npm run chaos`: the whole service on its own stack (scripts/local-stack.ts: embedded
// PostgreSQL in a temp dir, a Temporal dev server with SQLite persistence, the compiled API and
// worker as child processes, all on free ports), driven by buyers and sellers for CHAOS_SECONDS
// (default 120) while the worker, the Temporal server and PostgreSQL are SIGKILLed and started
// again on a schedule drawn from CHAOS_SEED. Then it lets the system settle (at most
// CHAOS_SETTLE_SECONDS, default 240) and checks from the database and Temporal that nothing was
// lost: every paid checkout has its orders, every case row agrees with its workflow, every
// webhook event reached every subscribed endpoint, no workflow start is stuck, every start
// recorded as made exists in Temporal. Prints the counts; exits 1 when anything is lost.
// docs/operations.md, "Chaos run".
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../src/config';
import { EVENT_TYPES } from '../src/services/events/outbox';
import { temporalDataConverter } from '../src/temporal/data-converter';
import { workflowIds } from '../src/temporal/workflow-ids';
import { caseStateQuery } from '../workflows/contracts/case';
import { LocalStack, sleep, type Component } from './local-stack';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 120);
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
const SETTLE_SECONDS = Number(process.env.CHAOS_SETTLE_SECONDS ?? 240);
const BUYERS = Number(process.env.CHAOS_BUYERS ?? 4);
/** Units each listing starts with. */
const STOCK = 100_000;
const ADDRESS = { name: 'Chaos Buyer', line1: '1 Chaos Road', line2: '', city: 'London', state: '', postal_code: 'E1 1AA', country: 'GB' };
/**
 * Every subscribable webhook event type, taken from the service so the run cannot drift from it
 * (case changes are not webhook events: docs/webhooks.md).
 */
const ALL_EVENTS: string[] = [...EVENT_TYPES];
/** The money events: what the second endpoint of the first seller subscribes to. */
const MONEY_EVENTS = ['ORDER_CANCELLED', 'REFUND_CREATED', 'PAYOUT_PAID', 'PAYOUT_FAILED'];

const say = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** mulberry32: a small seeded generator, so a seed replays the same schedule and choices. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- client side --------------------------------------------------------------------------

const errors = new Map<string, number>();
const countError = (kind: string) => errors.set(kind, (errors.get(kind) ?? 0) + 1);

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of many shapes
  location: string | null;
}

let base = '';
let keySeq = 0;

/**
 * One request, repeated through outages until it gets an answer that is not an outage: network
 * errors, 5xx and 409 `idempotency-key-in-use` are counted and retried with the same
 * Idempotency-Key (a key whose claim outlived a crashed request is replaced after 30 s). Gives up
 * after `patienceMs` and returns null.
 */
async function call(
  method: string,
  url: string,
  opts: { token?: string; body?: unknown; form?: string; patienceMs?: number } = {},
): Promise<Answer | null> {
  let key = `chaos-${SEED}-${++keySeq}`;
  const started = Date.now();
  let inUseSince = 0;
  let wait = 250;
  for (;;) {
    let kind: string;
    try {
      const res = await fetch(base + url, {
        method,
        redirect: 'manual',
        signal: AbortSignal.timeout(20_000),
        headers: {
          ...(opts.token ? { Authorization: `Bearer ${opts.token}`, 'Idempotency-Key': key } : {}),
          ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...(opts.form !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: opts.body !== undefined ? JSON.stringify(opts.body) : opts.form,
      });
      const text = await res.text();
      const body = text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
      const inUse = res.status === 409 && typeof body === 'object' && String(body.type).endsWith('/idempotency-key-in-use');
      if (res.status < 500 && !inUse) return { status: res.status, body, location: res.headers.get('location') };
      kind = inUse ? '409 idempotency-key-in-use' : `${res.status} ${typeof body === 'object' ? String(body.type ?? '') : ''}`.trim();
      if (inUse) {
        inUseSince ||= Date.now();
        if (Date.now() - inUseSince > 30_000) {
          key = `chaos-${SEED}-${++keySeq}`;
          inUseSince = 0;
        }
      } else inUseSince = 0;
    } catch (err) {
      kind = `network: ${(err as Error).name === 'TimeoutError' ? 'timeout' : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name)}`;
    }
    countError(kind);
    if (Date.now() - started > (opts.patienceMs ?? 120_000)) {
      countError(`gave up: ${method} ${url.replace(/[0-9a-f-]{36}/g, ':id')}`);
      return null;
    }
    await sleep(wait);
    wait = Math.min(wait * 2, 4000);
  }
}

/** `call`, requiring one of the given statuses. */
async function expectStatus(status: number[], method: string, url: string, opts: Parameters<typeof call>[2] = {}): Promise<Answer> {
  const res = await call(method, url, opts);
  if (!res) throw new Error(`${method} ${url}: no answer through the outages`);
  if (!status.includes(res.status)) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}

// ---- webhook receiver ---------------------------------------------------------------------

/** `${endpoint label} ${webhook-id}` of every request received. */
const received = new Set<string>();

async function startReceiver(): Promise<{ url: (label: string) => string; close: () => void }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const label = (req.url ?? '').split('/').pop() ?? '';
      received.add(`${label} ${String(req.headers['webhook-id'])}`);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: (label) => `http://127.0.0.1:${port}/hooks/${label}`, close: () => server.close() };
}

// ---- traffic ------------------------------------------------------------------------------

interface Party {
  id: string;
  token: string;
}

const driven = { checkouts: 0, paid: new Set<string>(), disputes: 0, caseActions: 0, shipped: 0, received: 0, failedIterations: 0 };

async function register(name: string): Promise<Party> {
  const res = await expectStatus([201], 'POST', '/auth/register', {
    body: { email: `${name}@chaos.test`, username: name, password: 'chaos password 123' },
  });
  return { id: res.body.user.id, token: res.body.accessToken };
}

async function setUp(db: PgClient, hookUrl: (label: string) => string) {
  const sellers: Array<Party & { listingIds: string[] }> = [];
  await db.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon') ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/base', 'pokemon', 'Base') ON CONFLICT DO NOTHING`);
  await db.query(
    `INSERT INTO catalog_sets (urn, series_urn, game_urn, name) VALUES ('pokemon/base/chaos', 'pokemon/base', 'pokemon', 'Chaos Set')`,
  );
  for (let i = 0; i < 6; i += 1) {
    await db.query(
      `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name) VALUES ($1, $2, 'pokemon', 'pokemon/base', 'pokemon/base/chaos', $3, $3)`,
      [`pokemon/base/chaos/${i}`, `chaos-card-${i}`, `Chaos Card ${i}`],
    );
  }
  // Two sellers; the first has two endpoints (all events, and money events only), the second one.
  const endpoints: Array<{ seller: number; label: string; subscriptions: string[] }> = [
    { seller: 0, label: 'a-all', subscriptions: ALL_EVENTS },
    { seller: 0, label: 'a-money', subscriptions: MONEY_EVENTS },
    { seller: 1, label: 'b-all', subscriptions: ALL_EVENTS },
  ];
  const labels = new Map<string, string>();
  for (let s = 0; s < 2; s += 1) {
    const seller = await register(`chaosseller${s}`);
    await expectStatus([200, 201], 'POST', '/seller', { token: seller.token });
    await expectStatus([201], 'POST', '/seller/delivery-options', {
      token: seller.token,
      body: { name: '2nd class', price: 150, tracked: false, countries: ['GB'] },
    });
    for (const e of endpoints.filter((x) => x.seller === s)) {
      const res = await expectStatus([201], 'POST', '/seller/webhooks', {
        token: seller.token,
        body: { url: hookUrl(e.label), subscriptions: e.subscriptions },
      });
      labels.set(res.body.id, e.label);
    }
    const listingIds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await expectStatus([201], 'POST', '/seller/listings', {
        token: seller.token,
        body: { urn: `pokemon/base/chaos/${s * 3 + i}`, condition: 'NEAR_MINT', language: 'en', price: 1000 + 100 * i, quantity: STOCK },
      });
      listingIds.push(res.body.id);
    }
    sellers.push({ ...seller, listingIds });
  }
  return { sellers, labels };
}

/** One buyer's purchase and what follows it: nothing, ship and receive, or a case. */
async function iteration(buyer: Party, sellers: Array<Party & { listingIds: string[] }>, random: () => number): Promise<void> {
  const seller = sellers[Math.floor(random() * sellers.length)]!;
  const listingId = seller.listingIds[Math.floor(random() * seller.listingIds.length)]!;
  const basket = await expectStatus([200], 'GET', '/basket', { token: buyer.token });
  const basketId: string = basket.body.id;
  await expectStatus([200], 'PUT', `/basket/${basketId}/items/${listingId}`, { token: buyer.token, body: { quantity: 1 } });
  await expectStatus([200], 'PUT', `/basket/${basketId}/delivery`, { token: buyer.token, body: { address: ADDRESS } });
  const checkout = await expectStatus([201], 'POST', `/basket/${basketId}/checkout`, {
    token: buyer.token,
    body: { successUrl: 'https://shop.example/thanks' },
  });
  driven.checkouts += 1;
  const payPath = new URL(checkout.body.url as string).pathname;
  const paid = await expectStatus([303], 'POST', payPath, { form: 'outcome=success' });
  driven.paid.add(payPath.split('/').pop()!);
  const purchaseId = new URL(paid.location!).searchParams.get('purchase')!;
  const purchase = await expectStatus([200], 'GET', `/user/purchases/${purchaseId}`, { token: buyer.token });
  const order = purchase.body.orders[0];
  const item = order.items[0];

  const roll = random();
  if (roll < 0.3) {
    await expectStatus([204], 'POST', `/seller/orders/${order.id}`, {
      token: seller.token,
      body: {
        action: 'ship',
        shipment: { carrier: 'Royal Mail', trackingNumber: `SIM${Date.now()}` },
        items: [{ id: item.id, quantity: 1 }],
      },
    });
    driven.shipped += 1;
    await expectStatus([200], 'PUT', `/user/purchases/${purchaseId}`, {
      token: buyer.token,
      body: { action: 'receive', orderId: order.id },
    });
    driven.received += 1;
  } else if (roll < 0.75) {
    const disputed = await expectStatus([200, 409], 'PUT', `/user/purchases/${purchaseId}`, {
      token: buyer.token,
      body: { action: 'dispute', orderId: order.id, reason: 'DAMAGED', comment: 'Arrived bent', items: [{ id: item.id, quantity: 1 }] },
    });
    driven.disputes += 1;
    // A 409 item-already-disputed means an earlier attempt went through: read the case from the purchase.
    const view =
      disputed.status === 200
        ? disputed.body
        : (await expectStatus([200], 'GET', `/user/purchases/${purchaseId}`, { token: buyer.token })).body;
    const caseId: string = view.orders[0].cases[0].id;
    const next = random();
    const act = (party: Party, side: 'user' | 'seller', body: Record<string, unknown>) =>
      expectStatus([200, 409], 'PUT', `/${side}/cases/${caseId}`, { token: party.token, body }).then((r) => {
        driven.caseActions += 1;
        return r;
      });
    if (next < 0.5) {
      const proposed = await act(seller, 'seller', { action: 'propose', type: 'REFUND', amount: 500, comment: 'Half back' });
      const outcome = (proposed.body.outcomes as Array<{ id: string; party: string; status: string }>).find(
        (o) => o.party === 'SELLER' && o.status === 'PENDING',
      );
      if (outcome) await act(buyer, 'user', { action: random() < 0.8 ? 'accept' : 'reject', outcomeId: outcome.id });
    } else if (next < 0.8) {
      await act(buyer, 'user', { action: 'escalate' });
    } else {
      await act(buyer, 'user', { action: 'propose', type: 'REPLACEMENT', amount: 0, comment: 'Send another one' });
    }
  }
}

// ---- chaos schedule -----------------------------------------------------------------------

interface Kill {
  at: number;
  component: Component;
  downMs: number;
}

function schedule(random: () => number): Kill[] {
  const components: Component[] = ['worker', 'temporal', 'postgres'];
  // Each component at least once, then about one more kill per 40 s of run.
  const list = [...components];
  for (let i = 0; i < Math.floor(SECONDS / 40); i += 1) list.push(components[Math.floor(random() * components.length)]!);
  return list
    .map((component) => ({ at: (0.05 + random() * 0.8) * SECONDS * 1000, component, downMs: 1000 + Math.floor(random() * 7000) }))
    .sort((a, b) => a.at - b.at);
}

// ---- checks -------------------------------------------------------------------------------

interface Findings {
  problems: string[];
  counts: Record<string, number | string>;
}

async function check(db: PgClient, temporal: Client, labels: Map<string, string>): Promise<Findings> {
  const problems: string[] = [];
  const counts: Record<string, number | string> = {};
  const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows as T[];

  // Checkouts: each one paid has its purchase and one order per seller it froze.
  const sessions = await q<{ id: string; status: string; orders: number; expected: number; purchase: string | null }>(
    `SELECT s.id, s.status, p.id AS purchase, jsonb_array_length(s.sellers) AS expected,
            (SELECT count(*)::int FROM orders o WHERE o.purchase_id = p.id) AS orders
       FROM checkout_sessions s LEFT JOIN purchases p ON p.id = s.purchase_id`,
  );
  const byId = new Map(sessions.map((s) => [s.id, s]));
  for (const id of driven.paid) {
    const s = byId.get(id);
    if (!s || s.status !== 'PAID') problems.push(`checkout ${id} was paid (303) but is ${s?.status ?? 'missing'}`);
  }
  for (const s of sessions.filter((x) => x.status === 'PAID')) {
    if (!s.purchase) problems.push(`paid checkout ${s.id} has no purchase`);
    else if (s.orders !== s.expected) problems.push(`paid checkout ${s.id} has ${s.orders} orders, expected ${s.expected}`);
  }
  counts['checkouts paid (driver / database)'] = `${driven.paid.size} / ${sessions.filter((x) => x.status === 'PAID').length}`;
  counts['checkout sessions by status'] = Object.entries(
    sessions.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {}),
  )
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const [orders] = await q<{ n: number; events: number }>(
    `SELECT count(*)::int AS n,
            (SELECT count(*)::int FROM outbox_events WHERE type = 'ORDER_CREATED') AS events FROM orders`,
  );
  counts.orders = orders!.n;
  if (orders!.events !== orders!.n) problems.push(`${orders!.n} orders but ${orders!.events} ORDER_CREATED events`);

  // Stock: no hold left behind, and every unit sold is gone from its listing (each started at 100,000).
  const stock = await q<{ id: string; quantity: number; reserved: number; sold: number }>(
    `SELECT l.id, l.quantity, l.reserved, coalesce(sum(i.quantity), 0)::int AS sold
       FROM listings l LEFT JOIN order_items i ON i.listing_id = l.id
      GROUP BY l.id`,
  );
  for (const l of stock) {
    if (l.reserved !== 0) problems.push(`listing ${l.id} still holds ${l.reserved} units`);
    if (l.quantity + l.sold !== STOCK) problems.push(`listing ${l.id}: ${l.quantity} left + ${l.sold} sold ≠ ${STOCK}`);
  }

  // E-mails queued by the order and case workflows went out (the embedded mailer stamps delivered_at).
  const mail = await q<{ kind: string; total: number; delivered: number }>(
    `SELECT kind, count(*)::int AS total, count(delivered_at)::int AS delivered FROM email_messages GROUP BY kind ORDER BY kind`,
  );
  counts['e-mails (delivered / queued)'] = mail.map((m) => `${m.kind} ${m.delivered}/${m.total}`).join(', ') || 'none';

  // The start outbox is empty, and every start it made exists in Temporal.
  const [starts] = await q<{ total: number; pending: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE started_at IS NULL)::int AS pending FROM workflow_starts`,
  );
  counts['workflow starts (made / pending)'] = `${starts!.total - starts!.pending} / ${starts!.pending}`;
  if (starts!.pending > 0) problems.push(`${starts!.pending} workflow starts still pending`);
  const started = await q<{ workflow_id: string }>(`SELECT DISTINCT workflow_id FROM workflow_starts WHERE started_at IS NOT NULL`);
  const missing: string[] = [];
  for (let i = 0; i < started.length; i += 16) {
    await Promise.all(
      started.slice(i, i + 16).map(async ({ workflow_id }) => {
        try {
          await temporal.workflow.getHandle(workflow_id).describe();
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) missing.push(workflow_id);
          else throw err;
        }
      }),
    );
  }
  if (missing.length) problems.push(`${missing.length} started workflows unknown to Temporal, e.g. ${missing.slice(0, 3).join(', ')}`);

  // Cases: the row's status and outcomes are the workflow's.
  const cases = await q<{ id: string; status: string }>(`SELECT id, status FROM cases ORDER BY id`);
  const outcomes = await q<{ case_id: string; id: string; status: string }>(`SELECT case_id, id, status FROM case_outcomes`);
  const byStatus: Record<string, number> = {};
  for (const c of cases) {
    byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
    const handle = temporal.workflow.getHandle(workflowIds.case(c.id));
    try {
      const state = await handle.query(caseStateQuery);
      const rows = outcomes
        .filter((o) => o.case_id === c.id)
        .map((o) => `${o.id}:${o.status}`)
        .sort();
      const wf = state.outcomes.map((o) => `${o.id}:${o.status}`).sort();
      if (state.status !== c.status) problems.push(`case ${c.id}: row ${c.status}, workflow ${state.status}`);
      else if (rows.join() !== wf.join())
        problems.push(`case ${c.id}: outcomes ${rows.join() || '-'} in the row, ${wf.join() || '-'} in the workflow`);
      const { status } = await handle.describe();
      if (status.name === 'COMPLETED' && c.status !== 'CLOSED') problems.push(`case ${c.id}: workflow completed, row ${c.status}`);
      if (status.name !== 'COMPLETED' && status.name !== 'RUNNING') problems.push(`case ${c.id}: workflow ${status.name}`);
    } catch (err) {
      problems.push(`case ${c.id}: ${(err as Error).message}`);
    }
  }
  counts.cases = `${cases.length} (${Object.entries(byStatus)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')})`;

  // Webhooks: every event reached every endpoint of its seller subscribed to its type.
  const expected = await q<{ event_id: string; type: string; endpoint_id: string; status: string | null; dispatched: boolean }>(
    `SELECT e.id AS event_id, e.type, w.id AS endpoint_id, d.status, e.dispatched_at IS NOT NULL AS dispatched
       FROM outbox_events e
       JOIN webhook_endpoints w ON w.seller_id = e.seller_id AND e.type = ANY (w.subscriptions)
       LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.endpoint_id = w.id
      WHERE e.type <> 'TEST_WEBHOOK'`,
  );
  const [events] = await q<{ n: number; undispatched: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE dispatched_at IS NULL)::int AS undispatched FROM outbox_events`,
  );
  if (events!.undispatched > 0) problems.push(`${events!.undispatched} outbox events not fanned out`);
  let delivered = 0;
  const lost: string[] = [];
  for (const e of expected) {
    const seen = received.has(`${labels.get(e.endpoint_id)} ${e.event_id}`);
    if (e.status === 'SUCCEEDED' && seen) delivered += 1;
    else
      lost.push(
        `${e.type} ${e.event_id} → ${labels.get(e.endpoint_id)}: ${e.status ?? 'no delivery'}${seen ? ', received' : ', not received'}`,
      );
  }
  if (lost.length) problems.push(`${lost.length} webhook deliveries not delivered, e.g.\n      ${lost.slice(0, 5).join('\n      ')}`);
  counts['webhook events'] = events!.n;
  counts['webhook deliveries (delivered / expected)'] = `${delivered} / ${expected.length}`;
  return { problems, counts };
}

// ---- main ---------------------------------------------------------------------------------

async function main(): Promise<void> {
  const random = rng(SEED);
  const kills: Record<Component, number> = { worker: 0, temporal: 0, postgres: 0, api: 0 };
  const unexpected: string[] = [];
  const startupExits: string[] = [];
  const receiver = await startReceiver();
  const stack = new LocalStack({
    // Retries of a failed delivery come quickly, so a delivery hit by an outage lands within the settle time.
    env: { WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,20s,30s,60s' },
    log: say,
    onUnexpectedExit: (component, ready, code, signal) => {
      // A process that cannot reach a dependency at start exits for its supervisor to start it
      // again, as an orchestrator would here; one that dies while running is a bug and fails the run.
      (ready ? unexpected : startupExits).push(`${component} (code ${code}, signal ${signal})`);
      if ((component === 'api' || component === 'worker') && !stack.running(component))
        setTimeout(() => void (stack.running(component) || stack.restart(component)), 1000);
    },
  });
  say(`seed ${SEED}, ${SECONDS} s of traffic with ${BUYERS} buyers, settle at most ${SETTLE_SECONDS} s; stack in ${stack.dir}`);
  let exitCode = 1;
  try {
    await stack.start();
    base = stack.apiUrl;
    say(`stack up: API ${stack.apiUrl}, Temporal ${stack.temporalAddress} (UI ${stack.uiUrl}), PostgreSQL :${stack.ports.postgres}`);
    const db = new PgClient({ connectionString: stack.databaseUrl });
    // The check connection is opened after the run; the setup writes through a short-lived one.
    await db.connect();
    const { sellers, labels } = await setUp(db, receiver.url);
    await db.end();
    const buyers = await Promise.all(Array.from({ length: BUYERS }, (_, i) => register(`chaosbuyer${i}`)));

    const plan = schedule(random);
    say(`plan: ${plan.map((k) => `${k.component}@${(k.at / 1000).toFixed(0)}s/${(k.downMs / 1000).toFixed(1)}s`).join(', ')}`);
    const t0 = Date.now();
    const deadline = t0 + SECONDS * 1000;
    const chaos = (async () => {
      for (const k of plan) {
        await sleep(Math.max(0, t0 + k.at - Date.now()));
        say(`SIGKILL ${k.component}, down for ${(k.downMs / 1000).toFixed(1)} s`);
        await stack.kill(k.component);
        kills[k.component] += 1;
        await sleep(k.downMs);
        await stack.restart(k.component);
        say(`${k.component} started again`);
      }
    })();
    const traffic = buyers.map(async (buyer, i) => {
      const own = rng(SEED * 31 + i);
      while (Date.now() < deadline) {
        try {
          await iteration(buyer, sellers, own);
        } catch (err) {
          driven.failedIterations += 1;
          say(`buyer ${i}: ${(err as Error).message}`);
        }
      }
    });
    await Promise.all([chaos, ...traffic]);
    say(`traffic over after ${((Date.now() - t0) / 1000).toFixed(0)} s; settling`);

    const config = loadConfig({ ...process.env, ...stack.env });
    const connection = await Connection.connect({ address: stack.temporalAddress });
    const temporal = new Client({ connection, dataConverter: temporalDataConverter(config.temporal) });
    const checkDb = new PgClient({ connectionString: stack.databaseUrl });
    await checkDb.connect();
    const settleDeadline = Date.now() + SETTLE_SECONDS * 1000;
    const checkOnce = () =>
      check(checkDb, temporal, labels).catch((err: unknown): Findings => ({ problems: [`check failed: ${String(err)}`], counts: {} }));
    let findings = await checkOnce();
    while (findings.problems.length > 0 && Date.now() < settleDeadline) {
      await sleep(5000);
      findings = await checkOnce();
    }
    const settled = SETTLE_SECONDS - Math.max(0, Math.round((settleDeadline - Date.now()) / 1000));
    await checkDb.end();
    await connection.close();

    console.log(`\n=== chaos run, seed ${SEED}: ${SECONDS} s of traffic, ${BUYERS} buyers, settled in ${settled} s ===`);
    console.log(
      `kills (SIGKILL + restart): ${Object.entries(kills)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    console.log(
      `driven: ${driven.checkouts} checkouts, ${driven.paid.size} paid, ${driven.shipped} shipped, ${driven.received} received, ` +
        `${driven.disputes} disputes, ${driven.caseActions} case actions, ${driven.failedIterations} iterations abandoned`,
    );
    for (const [k, v] of Object.entries(findings.counts)) console.log(`${k}: ${v}`);
    const totalErrors = [...errors.values()].reduce((a, b) => a + b, 0);
    console.log(`client errors seen during outages (retried): ${totalErrors}`);
    for (const [kind, n] of [...errors.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${kind}`);
    console.log(
      `processes that exited at start-up with a dependency down (restarted): ${startupExits.length ? startupExits.join(', ') : 'none'}`,
    );
    console.log(`processes that died while running: ${unexpected.length ? unexpected.join(', ') : 'none'}`);
    if (findings.problems.length) {
      console.log(`\nLOST OR INCONSISTENT (${findings.problems.length}):`);
      for (const p of findings.problems) console.log(`  - ${p}`);
    } else console.log('\nnothing lost: every check passed');
    exitCode = findings.problems.length === 0 && unexpected.length === 0 ? 0 : 1;
  } finally {
    receiver.close();
    const keep = process.env.CHAOS_KEEP === '1' || exitCode !== 0;
    await stack.stop(keep);
    if (keep) say(`logs and data kept in ${stack.dir}`);
  }
  process.exit(exitCode);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

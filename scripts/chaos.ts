// `npm run chaos`: the whole service on its own stack (scripts/local-stack.ts: embedded
// PostgreSQL in a temp dir, a Temporal dev server with SQLite persistence, two compiled API
// processes behind a round-robin proxy and the worker as child processes, all on free ports),
// driven by buyers, sellers and an operator for CHAOS_SECONDS (default 120) — purchases,
// shipments, receipts, cancellations, cases refunded in part or in full, escalations decided by
// the operator, with funds released and paid out on short timers — while components are
// SIGKILLed and started again on a schedule drawn from CHAOS_SEED: the worker, the Temporal
// server, PostgreSQL, one API replica, and two at once (Temporal and PostgreSQL, the worker and
// PostgreSQL). Then it lets the system settle (at most CHAOS_SETTLE_SECONDS, default 240) and
// checks from the database and Temporal that nothing was lost (every paid checkout has its
// orders, every case row agrees with its workflow, every webhook event reached every subscribed
// endpoint, no workflow start is stuck, every start recorded as made exists in Temporal) and
// that no money went astray: every ledger transaction sums to zero, no seller balance is
// negative, no order is refunded beyond what was paid, no payout is paid twice, the
// reconciliation (`reconcileFigures`, and `npm run reconcile`) finds no difference, and the
// money reconciler finds nothing stuck. Prints the counts; exits 1 when anything fails.
// docs/operations.md, "Chaos run".
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../src/config';
import { createDataSource } from '../src/db/data-source';
import { EVENT_TYPES } from '../src/services/events/outbox';
import { describeDifference, reconcileFigures } from '../src/services/money/reconciliation';
import { temporalDataConverter } from '../src/temporal/data-converter';
import { casesWorkflowIds } from '../src/modules/cases';
import { caseStateQuery } from '../workflows/contracts/case';
import { CHECKOUT, isApi, LocalStack, sleep, type Component } from './local-stack';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 120);
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
const SETTLE_SECONDS = Number(process.env.CHAOS_SETTLE_SECONDS ?? 240);
const BUYERS = Number(process.env.CHAOS_BUYERS ?? 4);
/** Sellers (at least 2: the first two have webhook endpoints; the last one's bank refuses payouts). */
const SELLERS = Math.max(2, Number(process.env.CHAOS_SELLERS ?? 4));
/** API processes behind the round-robin proxy; the schedule kills one of them at a time. */
const API_REPLICAS = Math.max(2, Number(process.env.CHAOS_API_REPLICAS ?? 2));
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
 * Idempotency-Key. A key whose claim outlived a crashed request (the request died with the
 * database before it could release its claim, which then holds for 5 minutes) is replaced 30 s
 * after it was first found in use, whatever outages came between: counted from its first 409
 * alone, later outages kept resetting the count and a buyer waited out the whole patience. Gives
 * up after `patienceMs` and returns null.
 */
async function call(
  method: string,
  url: string,
  opts: { token?: string; body?: unknown; form?: string; patienceMs?: number } = {},
): Promise<Answer | null> {
  let key = `chaos-${SEED}-${++keySeq}`;
  const started = Date.now();
  /** What each attempt met, for the log when the request is given up: `+seconds kind` runs. */
  const history: Array<{ kind: string; from: number; n: number }> = [];
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
      if (inUse) inUseSince ||= Date.now();
      if (inUseSince && Date.now() - inUseSince > 30_000) {
        key = `chaos-${SEED}-${++keySeq}`;
        history.push({ kind: `new key ${key}`, from: Date.now() - started, n: 1 });
        countError('key replaced: in use 30 s');
        inUseSince = 0;
      }
    } catch (err) {
      kind = `network: ${(err as Error).name === 'TimeoutError' ? 'timeout' : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name)}`;
    }
    countError(kind);
    const last = history[history.length - 1];
    if (last?.kind === kind) last.n += 1;
    else history.push({ kind, from: Date.now() - started, n: 1 });
    if (Date.now() - started > (opts.patienceMs ?? 120_000)) {
      countError(`gave up: ${method} ${url.replace(/[0-9a-f-]{36}/g, ':id')}`);
      say(
        `gave up on ${method} ${url} (keys up to ${key}) after ${((Date.now() - started) / 1000).toFixed(0)} s: ` +
          history.map((h) => `+${(h.from / 1000).toFixed(1)}s ${h.kind} ×${h.n}`).join(', '),
      );
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
type Seller = Party & { listingIds: string[] };

const driven = {
  checkouts: 0,
  paid: new Set<string>(),
  shipped: 0,
  received: 0,
  cancelRequests: 0,
  cancelled: 0,
  disputes: 0,
  caseActions: 0,
  refundsProposed: 0,
  refundsAccepted: 0,
  refundsRejected: 0,
  afterReceipt: 0,
  escalated: 0,
  operatorDecisions: 0,
  races: 0,
  failedIterations: 0,
};

async function register(name: string): Promise<Party> {
  const res = await expectStatus([201], 'POST', '/auth/register', {
    body: { email: `${name}@chaos.test`, username: name, password: 'chaos password 123' },
  });
  return { id: res.body.user.id, token: res.body.accessToken };
}

async function setUp(db: PgClient, hookUrl: (label: string) => string) {
  const sellers: Seller[] = [];
  await db.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon') ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/base', 'pokemon', 'Base') ON CONFLICT DO NOTHING`);
  await db.query(
    `INSERT INTO catalog_sets (urn, series_urn, game_urn, name) VALUES ('pokemon/base/chaos', 'pokemon/base', 'pokemon', 'Chaos Set')`,
  );
  for (let i = 0; i < SELLERS * 3; i += 1) {
    await db.query(
      `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name) VALUES ($1, $2, 'pokemon', 'pokemon/base', 'pokemon/base/chaos', $3, $3)`,
      [`pokemon/base/chaos/${i}`, `chaos-card-${i}`, `Chaos Card ${i}`],
    );
  }
  // The first seller has two endpoints (all events, and money events only), the second one.
  const endpoints: Array<{ seller: number; label: string; subscriptions: string[] }> = [
    { seller: 0, label: 'a-all', subscriptions: ALL_EVENTS },
    { seller: 0, label: 'a-money', subscriptions: MONEY_EVENTS },
    { seller: 1, label: 'b-all', subscriptions: ALL_EVENTS },
  ];
  const labels = new Map<string, string>();
  for (let s = 0; s < SELLERS; s += 1) {
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
  // The last seller's account at the simulated bank refuses payouts: their payout FAILS and the
  // money returns to available (docs/money.md "Payouts").
  await db.query(`INSERT INTO simulator_bank_accounts (seller_id, fails) VALUES ($1, true)`, [sellers[SELLERS - 1]!.id]);
  // The operator who decides escalated cases, granted as `npm run operators -- grant` does.
  const operator = await register('chaosoperator');
  await db.query(`INSERT INTO operators (user_id, granted_by) VALUES ($1, 'chaos')`, [operator.id]);
  return { sellers, labels, operator };
}

type Outcome = { id: string; party: string; status: string; type: string };

/** One buyer's purchase and what follows it: see `iteration`. */
class Purchase {
  orderId = '';
  itemId = '';
  price = 0;
  deliveryCharge = 0;
  purchaseId = '';
  constructor(
    readonly buyer: Party,
    readonly seller: Seller,
    readonly operator: Party,
  ) {}

  async buy(listingId: string): Promise<void> {
    const { buyer } = this;
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
    this.purchaseId = new URL(paid.location!).searchParams.get('purchase')!;
    const purchase = await expectStatus([200], 'GET', `/user/purchases/${this.purchaseId}`, { token: buyer.token });
    const order = purchase.body.orders[0];
    this.orderId = order.id;
    this.itemId = order.items[0].id;
    this.price = order.items[0].price;
    this.deliveryCharge = order.deliveryCharge;
  }

  async ship(): Promise<void> {
    await expectStatus([204], 'POST', `/seller/orders/${this.orderId}`, {
      token: this.seller.token,
      body: {
        action: 'ship',
        shipment: { carrier: 'Royal Mail', trackingNumber: `SIM${Date.now()}` },
        items: [{ id: this.itemId, quantity: 1 }],
      },
    });
    driven.shipped += 1;
  }

  async receive(): Promise<void> {
    await expectStatus([200], 'PUT', `/user/purchases/${this.purchaseId}`, {
      token: this.buyer.token,
      body: { action: 'receive', orderId: this.orderId },
    });
    driven.received += 1;
  }

  /** The seller cancels the unshipped order (a 409 means an earlier attempt, or a full refund, got there first). */
  async cancel(): Promise<void> {
    const res = await expectStatus([204, 409], 'POST', `/seller/orders/${this.orderId}`, {
      token: this.seller.token,
      body: { action: 'cancel' },
    });
    if (res.status === 204) driven.cancelled += 1;
  }

  async requestCancel(): Promise<void> {
    await expectStatus([200, 409], 'PUT', `/user/purchases/${this.purchaseId}`, {
      token: this.buyer.token,
      body: { action: 'request-cancel', orderId: this.orderId },
    });
    driven.cancelRequests += 1;
  }

  /** Opens a case on the order's item; returns its id (the open one: earlier cases on the item are closed). */
  async dispute(reason: string, comment: string): Promise<string> {
    const { buyer } = this;
    const disputed = await expectStatus([200, 409], 'PUT', `/user/purchases/${this.purchaseId}`, {
      token: buyer.token,
      body: { action: 'dispute', orderId: this.orderId, reason, comment, items: [{ id: this.itemId, quantity: 1 }] },
    });
    driven.disputes += 1;
    // A 409 item-already-disputed means an earlier attempt went through: read the case from the purchase.
    const view =
      disputed.status === 200
        ? disputed.body
        : (await expectStatus([200], 'GET', `/user/purchases/${this.purchaseId}`, { token: buyer.token })).body;
    const cases = view.orders[0].cases as Array<{ id: string; status: string }>;
    const open = cases.find((c) => c.status !== 'CLOSED') ?? cases[cases.length - 1]!;
    return open.id;
  }

  async act(side: 'user' | 'seller', caseId: string, body: Record<string, unknown>): Promise<Answer> {
    const party = side === 'user' ? this.buyer : this.seller;
    const res = await expectStatus([200, 409], 'PUT', `/${side}/cases/${caseId}`, { token: party.token, body });
    driven.caseActions += 1;
    return res;
  }

  /**
   * One side proposes a REFUND of `amount`, the other accepts it (or, `accept` false, rejects
   * it). Returns the answer to the acceptance, null when the proposal found the case closed.
   */
  async refund(caseId: string, proposer: 'user' | 'seller', amount: number, accept = true): Promise<Answer | null> {
    const proposed = await this.act(proposer, caseId, { action: 'propose', type: 'REFUND', amount, comment: `Refund of ${amount}` });
    if (proposed.status !== 200) return null;
    driven.refundsProposed += 1;
    const party = proposer === 'user' ? 'BUYER' : 'SELLER';
    const outcome = (proposed.body.outcomes as Outcome[]).find((o) => o.party === party && o.status === 'PENDING' && o.type === 'REFUND');
    if (!outcome) return null;
    const answer = await this.act(proposer === 'user' ? 'seller' : 'user', caseId, {
      action: accept ? 'accept' : 'reject',
      outcomeId: outcome.id,
    });
    if (answer.status === 200) driven[accept ? 'refundsAccepted' : 'refundsRejected'] += 1;
    return answer;
  }

  async operatorDecides(caseId: string, decision: 'close' | 'remediate'): Promise<Answer> {
    const res = await expectStatus([200, 409], 'POST', `/operator/cases/${caseId}/decision`, {
      token: this.operator.token,
      body: { decision, reason: 'chaos run' },
    });
    if (res.status === 200) driven.operatorDecisions += 1;
    return res;
  }
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
/** A partial refund: whole pence from 1 up to the item price less 1. */
const partial = (random: () => number, price: number) => 1 + Math.floor(random() * (price - 1));

/**
 * One buyer's purchase and what follows it, money moving in most branches: the seller ships and
 * the buyer receives (funds released after the hold, paid out by the payout run), sometimes with
 * a dispute and a refund afterwards, taken back from available or carried as a refund loss once
 * paid out; the seller cancels the unshipped order, sometimes on the buyer's request; a case
 * refund races a cancellation of the same order; a dispute before shipping settled by a partial
 * refund (accepted or rejected), a full refund of the item and then of the delivery charge in a
 * second case, an escalation an operator decides, or a replacement; or the order is shipped only.
 */
async function iteration(buyer: Party, sellers: Seller[], operator: Party, random: () => number): Promise<void> {
  const seller = pick(random, sellers);
  const p = new Purchase(buyer, seller, operator);
  await p.buy(pick(random, seller.listingIds));

  const roll = random();
  if (roll < 0.3) {
    await p.ship();
    await p.receive();
    if (random() < 0.4) {
      // Later, after the release and perhaps the payout: the refund comes out of available.
      await sleep(random() * 20_000);
      const caseId = await p.dispute('DAMAGED', 'Cracked after a week');
      driven.afterReceipt += 1;
      await p.refund(caseId, 'seller', random() < 0.5 ? partial(random, p.price) : p.price);
    }
  } else if (roll < 0.45) {
    if (random() < 0.5) await p.requestCancel();
    await p.cancel();
  } else if (roll < 0.52) {
    // A refund of the whole item accepted while the seller cancels the order: together they may
    // never refund more than was paid.
    const caseId = await p.dispute('WRONG_ITEM', 'Wrong card');
    const proposed = await p.act('seller', caseId, { action: 'propose', type: 'REFUND', amount: p.price, comment: 'All back' });
    const outcome = (proposed.body.outcomes as Outcome[] | undefined)?.find((o) => o.party === 'SELLER' && o.status === 'PENDING');
    if (outcome) {
      driven.races += 1;
      await Promise.all([p.act('user', caseId, { action: 'accept', outcomeId: outcome.id }), p.cancel()]);
    }
  } else if (roll < 0.85) {
    const caseId = await p.dispute('DAMAGED', 'Arrived bent');
    const next = random();
    if (next < 0.35) {
      await p.refund(caseId, 'seller', partial(random, p.price), random() < 0.8);
    } else if (next < 0.6) {
      // The whole item back, proposed by the buyer; then, in a second case, the delivery charge:
      // the order is then refunded in full (REFUNDED).
      const first = await p.refund(caseId, 'user', p.price);
      if (first?.status === 200 && random() < 0.6) {
        const second = await p.dispute('DAMAGED', 'And the postage, please');
        await p.refund(second, 'user', p.deliveryCharge);
      }
    } else if (next < 0.85) {
      await p.act('user', caseId, { action: 'escalate' });
      driven.escalated += 1;
      const decide = random();
      if (decide < 0.5) {
        const back = await p.operatorDecides(caseId, 'remediate');
        if (back.status === 200) await p.refund(caseId, 'seller', partial(random, p.price));
      } else if (decide < 0.75) await p.operatorDecides(caseId, 'close');
    } else {
      await p.act('user', caseId, { action: 'propose', type: 'REPLACEMENT', amount: 0, comment: 'Send another one' });
    }
  } else if (roll < 0.92) {
    await p.ship();
  }
}

// ---- chaos schedule -----------------------------------------------------------------------

/** One fault: every component in it SIGKILLed at `at`, all started again `downMs` later. */
interface Fault {
  at: number;
  components: Component[];
  downMs: number;
}

/** What was done, for the summary: times from the start of traffic. */
const faultLog: string[] = [];

function schedule(random: () => number, apiReplicas: Component[]): Fault[] {
  const api = () => pick(random, apiReplicas);
  // Each kind at least once: one component, two at once, and an API replica (the other one
  // keeps serving behind the proxy); then about one more fault per 40 s of run.
  const kinds: Array<() => Component[]> = [
    () => ['worker'],
    () => ['temporal'],
    () => ['postgres'],
    () => [api()],
    () => ['temporal', 'postgres'],
    () => ['worker', 'postgres'],
  ];
  const list = kinds.map((k) => k());
  for (let i = 0; i < Math.floor(SECONDS / 40); i += 1) list.push(pick(random, kinds)());
  return list
    .map((components) => ({ at: (0.05 + random() * 0.8) * SECONDS * 1000, components, downMs: 1000 + Math.floor(random() * 7000) }))
    .sort((a, b) => a.at - b.at);
}

/** Dependencies first: PostgreSQL, then Temporal, then the processes that use them. */
const RESTART_ORDER = (c: Component) => (c === 'postgres' ? 0 : c === 'temporal' ? 1 : 2);

// ---- checks -------------------------------------------------------------------------------

interface Findings {
  problems: string[];
  counts: Record<string, number | string>;
  /** The money invariants: what each checked, and how many broke it. */
  invariants: Array<{ name: string; checked: string; violations: number; examples: string[] }>;
  money: Record<string, number | string>;
  differences: string[];
  stuck: number;
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

  // Stock: no hold left behind, and every unit sold is gone from its listing (each started at
  // 100,000); a cancellation put its units back.
  const stock = await q<{ id: string; quantity: number; reserved: number; sold: number }>(
    `SELECT l.id, l.quantity, l.reserved, coalesce(sum(i.quantity) FILTER (WHERE i.status <> 'CANCELLED'), 0)::int AS sold
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
    const handle = temporal.workflow.getHandle(casesWorkflowIds.case(c.id));
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
  return { problems, counts, invariants: [], money: {}, differences: [], stuck: 0 };
}

/** Rows of `sql` as `key n (sum)` pairs, for the summary. */
const tally = (rows: Array<{ k: string; n: number; total?: number | null }>) =>
  rows.map((r) => `${r.k} ${r.n}${r.total != null ? ` (${r.total}p)` : ''}`).join(', ') || 'none';

/**
 * The money checks, from the database, the reconciliation and the operators' stuck-money route:
 * the invariants (each with what it covered and how many rows broke it), every figure the
 * service reports against the ledger (`reconcileFigures`), nothing stuck, and nothing still on
 * its way (a payout not answered, a release past its date with no case open).
 */
async function checkMoney(
  db: PgClient,
  ds: DataSource,
  sellerFeeBps: number,
  operator: Party,
): Promise<Pick<Findings, 'invariants' | 'money' | 'differences' | 'stuck' | 'problems'>> {
  const problems: string[] = [];
  const q = async <T = Record<string, unknown>>(sql: string) => (await db.query(sql)).rows as T[];
  const invariants: Findings['invariants'] = [];
  const invariant = (name: string, checked: string, bad: string[]) => {
    invariants.push({ name, checked, violations: bad.length, examples: bad.slice(0, 5) });
    if (bad.length) problems.push(`${name}: ${bad.length} violation(s), e.g.\n      ${bad.slice(0, 5).join('\n      ')}`);
  };

  // 1. Every ledger transaction sums to zero, per currency (and has entries).
  const txs = await q<{ id: string; event: string; sums: string | null }>(
    `SELECT t.id, t.event,
            (SELECT string_agg(currency || ' ' || s, ', ') FROM (SELECT currency, sum(amount) AS s FROM ledger_entries e
               WHERE e.transaction_id = t.id GROUP BY currency HAVING sum(amount) <> 0) x) AS sums,
            EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id) AS has_entries
       FROM ledger_transactions t`,
  );
  const [all] = await q<{ total: string | null }>(`SELECT sum(amount)::text AS total FROM ledger_entries`);
  invariant('every ledger transaction sums to zero', `${txs.length} transactions, all entries together ${all!.total ?? 0}`, [
    ...txs.filter((t) => t.sums).map((t) => `${t.event} ${t.id}: ${t.sums}`),
    ...(Number(all!.total ?? 0) !== 0 ? [`all entries sum to ${all!.total}`] : []),
  ]);

  // 2. No seller balance below zero: available, pending, in transit.
  const balances = await q<{ seller_id: string; available: number; pending: number; transit: number }>(
    `SELECT seller_id,
            coalesce(sum(amount) FILTER (WHERE account = 'seller_available'), 0)::int AS available,
            coalesce(sum(amount) FILTER (WHERE account = 'seller_pending'), 0)::int AS pending,
            coalesce(sum(amount) FILTER (WHERE account = 'payouts_in_transit'), 0)::int AS transit
       FROM ledger_entries WHERE seller_id IS NOT NULL GROUP BY seller_id`,
  );
  invariant(
    'no negative seller balance (available, pending, in transit)',
    `${balances.length} sellers`,
    balances
      .filter((b) => b.available < 0 || b.pending < 0 || b.transit < 0)
      .map((b) => `seller ${b.seller_id}: available ${b.available}, pending ${b.pending}, in transit ${b.transit}`),
  );

  // 3. No order refunded beyond what was paid for it: orders.refunded ≤ total, the ledger's
  //    refunds of the order ≤ its PAYMENT entries, the lines and delivery within what was
  //    refunded, each line within its value; and per purchase, the simulator's refunds ≤ paid.
  const orders = await q<{
    id: string;
    total: number;
    refunded: number;
    paid: number;
    ledger_refunds: number;
    adjusted: number;
    parts: number;
    lines_over: number;
  }>(
    `SELECT o.id, o.total, o.refunded,
            coalesce((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                       WHERE t.event = 'PAYMENT' AND e.order_id = o.id), 0)::int AS paid,
            coalesce((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                       WHERE t.event = 'REFUND' AND t.order_id = o.id AND e.account = 'refunds'), 0)::int AS ledger_refunds,
            coalesce((SELECT sum(amount) FROM adjustments a WHERE a.order_id = o.id AND a.type = 'REFUND'), 0)::int AS adjusted,
            (coalesce((SELECT sum(refunded) FROM order_items i WHERE i.order_id = o.id), 0) + o.delivery_refunded)::int AS parts,
            (SELECT count(*) FROM order_items i WHERE i.order_id = o.id AND i.refunded > i.price * i.quantity)::int AS lines_over
       FROM orders o`,
  );
  const purchases = await q<{ id: string; paid: number; refunded: number }>(
    `SELECT p.id,
            coalesce((SELECT -sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                       WHERE t.event = 'PAYMENT' AND t.purchase_id = p.id AND e.account = 'buyer_payments'), 0)::int AS paid,
            coalesce((SELECT sum(r.amount) FROM payment_refunds r WHERE r.purchase_id = p.id AND r.status = 'SUCCEEDED'), 0)::int AS refunded
       FROM purchases p`,
  );
  const overRefunded: string[] = [];
  for (const o of orders) {
    const why = [
      o.refunded > o.total && `refunded ${o.refunded} > total ${o.total}`,
      o.refunded > o.paid && `refunded ${o.refunded} > paid ${o.paid}`,
      o.ledger_refunds > o.paid && `ledger refunds ${o.ledger_refunds} > paid ${o.paid}`,
      o.ledger_refunds !== o.refunded && `ledger refunds ${o.ledger_refunds} ≠ refunded ${o.refunded}`,
      o.adjusted !== o.refunded && `adjustments ${o.adjusted} ≠ refunded ${o.refunded}`,
      o.parts > o.refunded && `lines + delivery refunded ${o.parts} > refunded ${o.refunded}`,
      o.lines_over > 0 && `${o.lines_over} line(s) refunded beyond their value`,
    ].filter(Boolean);
    if (why.length) overRefunded.push(`order ${o.id}: ${why.join('; ')}`);
  }
  for (const p of purchases.filter((x) => x.refunded > x.paid))
    overRefunded.push(`purchase ${p.id}: refunds ${p.refunded} > paid ${p.paid}`);
  invariant(
    'no order refunded beyond what was paid',
    `${orders.length} orders (${orders.filter((o) => o.refunded > 0).length} refunded, ${orders.filter((o) => o.refunded === o.total && o.total > 0).length} in full), ${purchases.length} purchases`,
    overRefunded,
  );

  // 4. No payout paid twice: one payout per seller and run date; each has exactly one creation
  //    posting of its amount and, once answered, one settlement posting of its amount (and one
  //    PAYOUT_PAID/FAILED event); and no seller was paid out more than was released to them
  //    (less what refunds and recoveries took back from available).
  const payouts = await q<{
    id: string;
    seller_id: string;
    run_date: string;
    amount: number;
    status: string;
    created: string;
    settled: string;
    events: number;
  }>(
    `SELECT p.id, p.seller_id, p.run_date::text AS run_date, p.amount::int AS amount, p.status,
            (SELECT string_agg(e.amount::text, ',') FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
              WHERE t.event = 'PAYOUT_CREATED' AND t.idempotency_key = 'payout-created:' || p.id AND e.account = 'payouts_in_transit') AS created,
            (SELECT string_agg((-e.amount)::text, ',') FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
              WHERE t.event IN ('PAYOUT_PAID', 'PAYOUT_FAILED') AND t.idempotency_key = 'payout-settled:' || p.id
                AND e.account = 'payouts_in_transit') AS settled,
            (SELECT count(*) FROM outbox_events o WHERE o.type IN ('PAYOUT_PAID', 'PAYOUT_FAILED') AND o.data->>'payoutId' = p.id::text)::int AS events
       FROM payouts p ORDER BY p.created_at`,
  );
  const [postings] = await q<{ created: number; settled: number; paid_total: number }>(
    `SELECT count(*) FILTER (WHERE event = 'PAYOUT_CREATED')::int AS created,
            count(*) FILTER (WHERE event IN ('PAYOUT_PAID', 'PAYOUT_FAILED'))::int AS settled,
            coalesce((SELECT sum(amount) FROM ledger_entries WHERE account = 'payouts'), 0)::int AS paid_total
       FROM ledger_transactions`,
  );
  const twice: string[] = [];
  const runs = new Map<string, number>();
  for (const p of payouts) runs.set(`${p.seller_id} ${p.run_date}`, (runs.get(`${p.seller_id} ${p.run_date}`) ?? 0) + 1);
  for (const [run, n] of runs) if (n > 1) twice.push(`seller and run date ${run}: ${n} payouts`);
  for (const p of payouts) {
    const answered = p.status === 'PAID' || p.status === 'FAILED';
    if (p.created !== String(p.amount)) twice.push(`payout ${p.id} of ${p.amount}: creation postings ${p.created ?? 'none'}`);
    if (answered ? p.settled !== String(p.amount) : p.settled !== null)
      twice.push(`payout ${p.id} ${p.status} of ${p.amount}: settlement postings ${p.settled ?? 'none'}`);
    if (p.events !== (answered ? 1 : 0)) twice.push(`payout ${p.id} ${p.status}: ${p.events} PAYOUT_PAID/FAILED events`);
  }
  if (postings!.created !== payouts.length) twice.push(`${postings!.created} PAYOUT_CREATED postings for ${payouts.length} payouts`);
  const paidTotal = payouts.filter((p) => p.status === 'PAID').reduce((a, p) => a + p.amount, 0);
  if (postings!.paid_total !== paidTotal) twice.push(`payouts account ${postings!.paid_total} ≠ PAID payouts ${paidTotal}`);
  const covered = await q<{ seller_id: string; released: number; taken: number; paid_out: number }>(
    `SELECT s.seller_id,
            coalesce(sum(e.amount) FILTER (WHERE t.event = 'FUNDS_RELEASED'), 0)::int AS released,
            coalesce(-sum(e.amount) FILTER (WHERE t.event IN ('REFUND', 'LOSS_RECOVERED')), 0)::int AS taken,
            (SELECT coalesce(sum(amount), 0) FROM payouts p WHERE p.seller_id = s.seller_id AND p.status <> 'FAILED')::int AS paid_out
       FROM (SELECT DISTINCT seller_id FROM ledger_entries WHERE seller_id IS NOT NULL) s
       LEFT JOIN ledger_entries e ON e.seller_id = s.seller_id AND e.account = 'seller_available'
       LEFT JOIN ledger_transactions t ON t.id = e.transaction_id
      GROUP BY s.seller_id`,
  );
  for (const c of covered.filter((x) => x.paid_out > x.released - x.taken))
    twice.push(`seller ${c.seller_id}: paid out ${c.paid_out} > released ${c.released} − taken back ${c.taken}`);
  invariant(
    'no payout paid twice',
    `${payouts.length} payouts (${tally(
      Object.entries(payouts.reduce<Record<string, number>>((acc, p) => ({ ...acc, [p.status]: (acc[p.status] ?? 0) + 1 }), {})).map(
        ([k, n]) => ({ k, n }),
      ),
    )}), ${postings!.settled} settlements, ${paidTotal}p paid out`,
    twice,
  );

  // Settled: no payout left unanswered, no release past its date unless a case holds it.
  const [waiting] = await q<{ payouts: number; releases: number }>(
    `SELECT (SELECT count(*) FROM payouts WHERE status IN ('CREATED', 'IN_TRANSIT'))::int AS payouts,
            (SELECT count(*) FROM transfers t WHERE t.type = 'TRANSFER' AND t.status = 'PENDING' AND t.available_on < now() - interval '5 seconds'
                AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.order_id = t.order_id AND c.status <> 'CLOSED'))::int AS releases`,
  );
  if (waiting!.payouts > 0) problems.push(`${waiting!.payouts} payouts not answered yet`);
  if (waiting!.releases > 0) problems.push(`${waiting!.releases} releases past their date and not made`);

  // The reconciliation: every figure the service reports against the ledger rows.
  const differences = (await reconcileFigures(ds, { sellerFeeBps })).map(describeDifference);
  if (differences.length)
    problems.push(`reconcile: ${differences.length} difference(s), e.g.\n      ${differences.slice(0, 5).join('\n      ')}`);

  // The money reconciler: nothing stuck, as operators see it.
  const stuckAnswer = await expectStatus([200], 'GET', '/operator/money/stuck', { token: operator.token });
  const stuck = (stuckAnswer.body.stuck as unknown[]).length;
  if (stuck > 0) problems.push(`${stuck} stuck in GET /operator/money/stuck: ${JSON.stringify(stuckAnswer.body.stuck).slice(0, 400)}`);
  const recent = stuckAnswer.body.recent as Array<{ kind: string; after: string | null }>;

  const money: Findings['money'] = {
    'ledger transactions by event': tally(
      await q(`SELECT event AS k, count(*)::int AS n FROM ledger_transactions GROUP BY event ORDER BY event`),
    ),
    'orders by status': tally(await q(`SELECT status AS k, count(*)::int AS n FROM orders GROUP BY status ORDER BY status`)),
    'adjustments (reason type kind: count, pence)': tally(
      await q(
        `SELECT reason || ' ' || type || ' ' || kind AS k, count(*)::int AS n, sum(amount)::int AS total FROM adjustments GROUP BY 1 ORDER BY 1`,
      ),
    ),
    'transfers (type status)': tally(
      await q(`SELECT type || ' ' || status AS k, count(*)::int AS n, sum(amount)::int AS total FROM transfers GROUP BY 1 ORDER BY 1`),
    ),
    payouts: tally(await q(`SELECT status AS k, count(*)::int AS n, sum(amount)::int AS total FROM payouts GROUP BY 1 ORDER BY 1`)),
    'refund losses the platform carries': (
      await q<{ t: number }>(`SELECT coalesce(-sum(amount), 0)::int AS t FROM ledger_entries WHERE account = 'platform_refund_losses'`)
    )[0]!.t,
    'money reconciler actions during the run (latest 50)': tally(
      Object.entries(
        recent.reduce<Record<string, number>>((acc, r) => {
          const k = `${r.kind} → ${r.after ?? 'failed'}`;
          return { ...acc, [k]: (acc[k] ?? 0) + 1 };
        }, {}),
      ).map(([k, n]) => ({ k, n })),
    ),
  };
  return { problems, invariants, money, differences, stuck };
}

// ---- main ---------------------------------------------------------------------------------

/** `node dist/scripts/reconcile.js` against the chaos database, as an operator runs `npm run reconcile`. */
function runReconcileScript(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(CHECKOUT, 'dist', 'scripts', 'reconcile.js')], {
      cwd: CHECKOUT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ code, output: output.trim() }));
  });
}

async function main(): Promise<void> {
  const runStarted = Date.now();
  const random = rng(SEED);
  const kills: Partial<Record<Component, number>> = {};
  const unexpected: string[] = [];
  const startupExits: string[] = [];
  const receiver = await startReceiver();
  const stack = new LocalStack({
    apiReplicas: API_REPLICAS,
    env: {
      // Retries of a failed delivery come quickly, so a delivery hit by an outage lands within the settle time.
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,20s,30s,60s',
      // Money moves within the run: funds released 2 s after receipt, a payout run every 15 s
      // (one payout per seller and UTC day, by design), 3 s in transit; the money reconciler
      // every 20 s, stepping in on money 30 s past due, so it races the workflows it backs up.
      FUNDS_HOLD_SECONDS: '2',
      PAYOUT_INTERVAL: '15s',
      PAYOUT_TRANSIT_SECONDS: '3',
      MONEY_RECONCILE_EVERY: '20s',
      MONEY_STUCK_AFTER_SECONDS: '30',
    },
    log: say,
    onUnexpectedExit: (component, ready, code, signal) => {
      // A process that cannot reach a dependency at start exits for its supervisor to start it
      // again, as an orchestrator would here; one that dies while running is a bug and fails the run.
      (ready ? unexpected : startupExits).push(`${component} (code ${code}, signal ${signal})`);
      if ((isApi(component) || component === 'worker') && !stack.running(component))
        setTimeout(() => void (stack.running(component) || stack.restart(component)), 1000);
    },
  });
  say(
    `seed ${SEED}, ${SECONDS} s of traffic with ${BUYERS} buyers and ${SELLERS} sellers, ${API_REPLICAS} API replicas, ` +
      `settle at most ${SETTLE_SECONDS} s; stack in ${stack.dir}`,
  );
  let exitCode = 1;
  try {
    await stack.start();
    base = stack.apiUrl;
    say(
      `stack up: API ${stack.apiUrl} (${stack.apis.map((a) => `${a.component} :${a.port}`).join(', ')}), ` +
        `Temporal ${stack.temporalAddress} (UI ${stack.uiUrl}), PostgreSQL :${stack.ports.postgres}`,
    );
    const db = new PgClient({ connectionString: stack.databaseUrl });
    // The check connection is opened after the run; the setup writes through a short-lived one.
    await db.connect();
    const { sellers, labels, operator } = await setUp(db, receiver.url);
    await db.end();
    const buyers = await Promise.all(Array.from({ length: BUYERS }, (_, i) => register(`chaosbuyer${i}`)));

    const plan = schedule(
      random,
      stack.apis.map((a) => a.component),
    );
    say(`plan: ${plan.map((f) => `${f.components.join('+')}@${(f.at / 1000).toFixed(0)}s/${(f.downMs / 1000).toFixed(1)}s`).join(', ')}`);
    const t0 = Date.now();
    const since = () => `t+${((Date.now() - t0) / 1000).toFixed(1)}s`;
    const deadline = t0 + SECONDS * 1000;
    const chaos = (async () => {
      for (const f of plan) {
        await sleep(Math.max(0, t0 + f.at - Date.now()));
        const at = since();
        const what = f.components.join(' + ');
        say(`SIGKILL ${what}, down for ${(f.downMs / 1000).toFixed(1)} s`);
        for (const c of f.components) {
          await stack.kill(c);
          kills[c] = (kills[c] ?? 0) + 1;
        }
        await sleep(f.downMs);
        for (const c of [...f.components].sort((a, b) => RESTART_ORDER(a) - RESTART_ORDER(b))) await stack.restart(c);
        say(`${what} started again`);
        faultLog.push(`${at}  SIGKILL ${what}, down ${(f.downMs / 1000).toFixed(1)} s, all started again at ${since()}`);
      }
    })();
    const traffic = buyers.map(async (buyer, i) => {
      const own = rng(SEED * 31 + i);
      while (Date.now() < deadline) {
        try {
          await iteration(buyer, sellers, operator, own);
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
    const ds = createDataSource({ url: stack.databaseUrl, poolSize: 2, applicationName: 'chaos-reconcile' });
    await ds.initialize();
    const settleDeadline = Date.now() + SETTLE_SECONDS * 1000;
    const checkOnce = async (): Promise<Findings> => {
      try {
        const found = await check(checkDb, temporal, labels);
        const money = await checkMoney(checkDb, ds, config.money.sellerFeeBps, operator);
        return { ...found, ...money, problems: [...found.problems, ...money.problems] };
      } catch (err) {
        return { problems: [`check failed: ${String(err)}`], counts: {}, invariants: [], money: {}, differences: [], stuck: -1 };
      }
    };
    let findings = await checkOnce();
    while (findings.problems.length > 0 && Date.now() < settleDeadline) {
      await sleep(5000);
      findings = await checkOnce();
    }
    const settled = SETTLE_SECONDS - Math.max(0, Math.round((settleDeadline - Date.now()) / 1000));
    const script = await runReconcileScript(stack.env);
    if (script.code !== 0) findings.problems.push(`npm run reconcile (dist/scripts/reconcile.js) exited ${script.code}`);
    await ds.destroy();
    await checkDb.end();
    await connection.close();

    console.log(
      `\n=== chaos run, seed ${SEED}: ${SECONDS} s of traffic, ${BUYERS} buyers, ${SELLERS} sellers, settled in ${settled} s ===`,
    );
    console.log(
      `kills (SIGKILL + restart): ${Object.entries(kills)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    console.log(`faults (time from the start of traffic):`);
    for (const line of faultLog) console.log(`  ${line}`);
    console.log(
      `driven: ${driven.checkouts} checkouts, ${driven.paid.size} paid, ${driven.shipped} shipped, ${driven.received} received, ` +
        `${driven.cancelRequests} cancellation requests, ${driven.cancelled} cancelled by the seller, ` +
        `${driven.disputes} disputes (${driven.afterReceipt} after receipt), ${driven.caseActions} case actions, ` +
        `${driven.refundsProposed} refunds proposed (${driven.refundsAccepted} accepted, ${driven.refundsRejected} rejected), ` +
        `${driven.races} refund-vs-cancellation races, ${driven.escalated} escalations, ${driven.operatorDecisions} operator decisions, ` +
        `${driven.failedIterations} iterations abandoned`,
    );
    if (stack.proxyCounts.length)
      console.log(
        `requests through the proxy per API replica: ${stack.apis.map((a, i) => `${a.component} ${stack.proxyCounts[i]}`).join(', ')}`,
      );
    for (const [k, v] of Object.entries(findings.counts)) console.log(`${k}: ${v}`);
    console.log('money moved:');
    for (const [k, v] of Object.entries(findings.money)) console.log(`  ${k}: ${v}`);
    console.log('money invariants:');
    for (const inv of findings.invariants) {
      console.log(`  ${inv.violations === 0 ? 'ok  ' : 'FAIL'} ${inv.name}: ${inv.checked}; ${inv.violations} violation(s)`);
      for (const e of inv.examples) console.log(`         ${e}`);
    }
    console.log(
      `reconcileFigures (src/services/money/reconciliation.ts): ${findings.differences.length === 0 ? 'no difference' : `${findings.differences.length} difference(s)`}`,
    );
    for (const d of findings.differences.slice(0, 20)) console.log(`  ${d}`);
    console.log(`npm run reconcile (dist/scripts/reconcile.js), exit ${script.code}: ${script.output.split('\n').slice(-1)[0]}`);
    console.log(`stuck money (GET /operator/money/stuck): ${findings.stuck}`);
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
    } else console.log('\nnothing lost, no money invariant broken, reconcile agrees, nothing stuck: every check passed');
    console.log(`total run time ${((Date.now() - runStarted) / 1000).toFixed(0)} s`);
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

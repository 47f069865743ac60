import {
  afterAction,
  afterDecision,
  nextCaseActions,
  type CaseState,
  type OutcomeType,
  type Party,
  type PartyAction,
} from '../../src/domain/cases/machine';
import { newId } from '../../src/ids';
import { AccountStatsService } from '../../src/services/account/account-stats';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { commitCheckout } from '../../src/services/checkout/commit';
import { offerChangeStarts } from '../../src/modules/offers';
import { DomainError } from '../../src/services/errors';
import { createDefaultReviews } from '../../src/services/reviews/default-reviews';
import { SellerStatsService } from '../../src/services/sellers/seller-stats';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { prng } from '../support/random';
import { STORED_ADDRESS } from '../support/shop';
import { reviewsModule } from '../../src/modules/reviews';
import { accountModule } from '../../src/modules/account';
import { sellersModule } from '../../src/modules/sellers';
import { servicesOf } from '../../src/modules';

/**
 * The account and seller stats are served from per-process caches that trust a version the
 * database bumps on every write to a counted row. Random sequences of what moves them (sales,
 * shipments, receipts, cancellations, case moves and their refunds, reviews written, revised,
 * deleted and defaulted), each through the real service, on Postgres; after every step every
 * cached figure (the app's own stats services, which have cached the previous step's answers)
 * must equal a recount from the rows (a fresh service), the user summary's counters
 * (`purchases`, `sales`, `reviews`, rating sum) must equal a count of their rows, and every
 * completed purchase, and no other, must have requested its review window once.
 *
 * STATS_PROPERTY_SEEDS / STATS_PROPERTY_STEPS make the run longer; a failure names its seed and
 * step, and the same seed replays the same sequence.
 */
const SEEDS = Number(process.env.STATS_PROPERTY_SEEDS ?? 12);
const STEPS = Number(process.env.STATS_PROPERTY_STEPS ?? 40);
const SETTLEMENT = { reviewWindowSeconds: 60, ...caseChangeStarts };
const BUYER_FEE = 100;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const db = () => api.database.db;
const rows = <T>(sql: string, params: unknown[] = []): Promise<T[]> => db().query(sql, params);
const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await rows<T>(sql, params))[0]!;

interface World {
  buyers: string[];
  sellers: string[];
  /** Each seller's listings, plentiful so sales and replacements never run out. */
  listings: Map<string, Array<{ id: string; urn: string; price: number }>>;
}

async function newWorld(): Promise<World> {
  const buyers = [];
  for (let i = 0; i < 3; i += 1) buyers.push((await registerUser(api, 'buyer')).id);
  const sellers = [];
  for (let i = 0; i < 2; i += 1) sellers.push((await registerSeller(api, 'seller')).id);
  const { items } = await seedCatalog(db(), { names: ['Alpha', 'Beta'] });
  const listings = new Map<string, Array<{ id: string; urn: string; price: number }>>();
  for (const sellerId of sellers) {
    const own = [];
    for (const [n, item] of items.entries()) {
      const price = 300 + 200 * n;
      own.push({ id: (await insertListing(db(), { sellerId, itemUrn: item.urn, quantity: 1000, price })).id, urn: item.urn, price });
    }
    listings.set(sellerId, own);
  }
  return { buyers, sellers, listings };
}

const pick = <T>(rng: () => number, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

/** One of `xs`, each as likely as its weight. */
function weighted<T>(rng: () => number, xs: Array<[weight: number, x: T]>): T {
  let left = rng() * xs.reduce((sum, [weight]) => sum + weight, 0);
  return (xs.find(([weight]) => (left -= weight) < 0) ?? xs[xs.length - 1]!)[1];
}

const CASE_MOVE_WEIGHTS: Record<PartyAction['action'], number> = { propose: 2, accept: 3, reject: 1, escalate: 0.5, resolve: 3 };

/** A paid checkout from one to all sellers, through the real commit (as the payment's activity runs it). */
async function sale(rng: () => number, w: World): Promise<string> {
  const buyerId = pick(rng, w.buyers);
  const sellerIds = w.sellers.filter(() => rng() < 0.6);
  if (sellerIds.length === 0) sellerIds.push(pick(rng, w.sellers));
  const lines = sellerIds.flatMap((sellerId) =>
    w.listings
      .get(sellerId)!
      .filter(() => rng() < 0.7)
      .map((l) => ({ listing: l, sellerId, quantity: 1 + Math.floor(rng() * 2) })),
  );
  for (const sellerId of sellerIds) {
    if (!lines.some((l) => l.sellerId === sellerId)) lines.push({ listing: w.listings.get(sellerId)![0]!, sellerId, quantity: 1 });
  }
  const sellers = sellerIds.map((sellerId) => {
    const subtotal = lines.filter((l) => l.sellerId === sellerId).reduce((sum, l) => sum + l.listing.price * l.quantity, 0);
    return {
      sellerId,
      subtotal,
      deliveryOption: { id: newId(), name: 'Post', price: 0, tracked: false },
      deliveryCharge: 0,
      total: subtotal,
    };
  });
  const subtotal = sellers.reduce((sum, s) => sum + s.subtotal, 0);
  const basketId = newId();
  const sessionId = newId();
  await db().query(`INSERT INTO baskets (id, user_id, status) VALUES ($1, $2, 'ORDERED')`, [basketId, buyerId]);
  await db().query(
    `INSERT INTO checkout_sessions (id, basket_id, buyer_id, status, success_url, lines, sellers, subtotal, delivery, fee, total, delivery_address, expires_at)
     VALUES ($1, $2, $3, 'PAID', 'http://localhost/ok', '[]', '[]', $4, 0, $5, $6, $7, now())`,
    [sessionId, basketId, buyerId, subtotal, BUYER_FEE, subtotal + BUYER_FEE, JSON.stringify(STORED_ADDRESS)],
  );
  await db().transaction((tx) =>
    commitCheckout(
      tx,
      {
        id: sessionId,
        basketId,
        buyerId,
        lines: lines.map(({ listing, sellerId, quantity }) => ({
          listingId: listing.id,
          sellerId,
          urn: listing.urn,
          condition: 'NEAR_MINT',
          language: 'en',
          variants: [],
          comment: '',
          quantity,
          price: listing.price,
          lineTotal: listing.price * quantity,
          available: 1000,
          problem: null,
        })),
        sellers,
        subtotal,
        delivery: 0,
        fee: BUYER_FEE,
        total: subtotal + BUYER_FEE,
        deliveryAddress: STORED_ADDRESS,
      },
      { sellerFeeBps: 500, offerChanges: offerChangeStarts },
    ),
  );
  return `sale by ${buyerId} from ${sellerIds.join(', ')}`;
}

interface OrderRow {
  id: string;
  purchase_id: string;
  buyer_id: string;
  seller_id: string;
  status: string;
  open: number;
}

/** The world's orders in a stable order, with how many of their cases are not CLOSED. */
const ordersOf = (w: World) =>
  rows<OrderRow>(
    `SELECT o.id, o.purchase_id, o.buyer_id, o.seller_id, o.status,
            (SELECT count(*)::int FROM cases c WHERE c.order_id = o.id AND c.status <> 'CLOSED') AS open
       FROM orders o WHERE o.seller_id = ANY($1) ORDER BY o.created_at, o.id`,
    [w.sellers],
  );

const itemsOf = (orderId: string) =>
  rows<{ id: string; quantity: number }>(`SELECT id, quantity FROM order_items WHERE order_id = $1 ORDER BY id`, [orderId]);

async function ship(o: OrderRow): Promise<void> {
  const items = await rows<{ id: string; quantity: number }>(
    `SELECT id, quantity FROM order_items WHERE order_id = $1 AND status = 'ACCEPTED' ORDER BY id`,
    [o.id],
  );
  await api.services.orderUpdates.apply(
    o.id,
    { role: 'seller', userId: o.seller_id },
    { action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM1' }, items },
  );
}

/** One party move on an unclosed case, chosen among those the case machine allows, written as the case workflow's activity writes it. */
async function caseMove(rng: () => number, caseId: string): Promise<string> {
  const [c] = await rows<{ status: CaseState['status']; order_id: string }>(`SELECT status, order_id FROM cases WHERE id = $1`, [caseId]);
  const outcomes = await rows<CaseState['outcomes'][number]>(
    `SELECT id, type, party, status FROM case_outcomes WHERE case_id = $1 ORDER BY created_at, id`,
    [caseId],
  );
  const state: CaseState = { status: c!.status, outcomes };
  if (state.status === 'ESCALATED' && rng() < 0.5) {
    const decision = rng() < 0.5 ? 'close' : 'remediate';
    const next = afterDecision(state, { decision });
    await recordCaseChange(
      db(),
      { caseId, changeId: newId(), actor: 'OPERATOR', kind: decision === 'close' ? 'operator-close' : 'operator-remediate', ...next },
      SETTLEMENT,
    );
    return `operator ${decision} on case ${caseId}`;
  }
  const party: Party = rng() < 0.5 ? 'BUYER' : 'SELLER';
  const actions = nextCaseActions(state, party);
  if (actions.length === 0) return `nothing for ${party} on case ${caseId}`;
  // Agreements and returns resolved more often than escalations, so refunds happen.
  const name = weighted(
    rng,
    actions.map((a) => [CASE_MOVE_WEIGHTS[a], a]),
  );
  let action: PartyAction;
  let proposal;
  if (name === 'propose') {
    const { left } = await one<{ left: number }>(`SELECT total - refunded AS left FROM orders WHERE id = $1`, [c!.order_id]);
    const type: OutcomeType = left > 0 ? pick(rng, ['REFUND', 'RETURN', 'REPLACEMENT'] as const) : 'REPLACEMENT';
    const amount = type === 'REPLACEMENT' ? 0 : 1 + Math.floor(rng() * left);
    proposal = { id: newId(), type, amount, comment: '', deliveryAddress: null };
    action = { action: 'propose', party, ...proposal };
  } else if (name === 'accept' || name === 'reject') {
    const theirs = state.outcomes.filter((o) => o.party !== party && o.status === 'PENDING');
    action = { action: name, party, outcomeId: pick(rng, theirs).id };
  } else {
    action = { action: name, party };
  }
  const next = afterAction(state, action, proposal?.id ?? '');
  await recordCaseChange(
    db(),
    { caseId, changeId: newId(), actor: party, kind: name, ...next, ...(proposal ? { proposal } : {}) },
    SETTLEMENT,
  );
  return `${party} ${name}${proposal ? ` ${proposal.type} ${proposal.amount}` : ''} on case ${caseId}`;
}

type Move = [weight: number, move: () => Promise<string>];

/** One random step that can be taken in the world as it is; what it did, for the failure message. */
async function step(rng: () => number, w: World): Promise<string> {
  const orders = await ordersOf(w);
  const where = (f: (o: OrderRow) => boolean) => orders.filter(f);
  const reviews = await rows<{ id: string; reviewer_id: string; revisions: number }>(
    `SELECT r.id, r.reviewer_id, r.revisions FROM reviews r JOIN orders o ON o.id = r.order_id
      WHERE o.seller_id = ANY($1) AND r.deleted_at IS NULL ORDER BY r.created_at, r.id`,
    [w.sellers],
  );
  // Received orders and parties who have not reviewed them (a deleted review keeps its slot).
  const unreviewed = await rows<{ order_id: string; reviewer_id: string }>(
    `SELECT o.id AS order_id, r.id AS reviewer_id FROM orders o CROSS JOIN LATERAL (VALUES (o.buyer_id), (o.seller_id)) r(id)
      WHERE o.seller_id = ANY($1) AND o.status = 'RECEIVED'
        AND NOT EXISTS (SELECT 1 FROM reviews v WHERE v.order_id = o.id AND v.reviewer_id = r.id)
      ORDER BY o.created_at, o.id, r.id`,
    [w.sellers],
  );
  const openCases = await rows<{ id: string }>(`SELECT id FROM cases WHERE seller_id = ANY($1) AND status <> 'CLOSED' ORDER BY id`, [
    w.sellers,
  ]);
  const completed = await rows<{ id: string }>(
    `SELECT DISTINCT p.id FROM purchases p JOIN orders o ON o.purchase_id = p.id
      WHERE o.seller_id = ANY($1) AND p.status = 'COMPLETED' ORDER BY p.id`,
    [w.sellers],
  );
  const cancel = (o: OrderRow) => api.services.orderUpdates.apply(o.id, { role: 'seller', userId: o.seller_id }, { action: 'cancel' });
  const receive = (o: OrderRow) => api.services.orderUpdates.apply(o.id, { role: 'buyer', userId: o.buyer_id }, { action: 'receive' });
  const dispute = async (o: OrderRow) => {
    const party = rng() < 0.5 ? 'buyer' : 'seller';
    const userId = party === 'buyer' ? o.buyer_id : o.seller_id;
    const items = await itemsOf(o.id);
    await api.services.orderUpdates.apply(
      o.id,
      { role: party, userId },
      { action: 'dispute', reason: 'DAMAGED', comment: '', items, outcomes: [] },
    );
    return `${party} disputes ${o.id}`;
  };
  const review = async (u: { order_id: string; reviewer_id: string }) => {
    await servicesOf(api.services, reviewsModule).reviews.create(u.reviewer_id, {
      orderId: u.order_id,
      rating: 1 + Math.floor(rng() * 5),
      content: 'ok',
    });
    return `review of ${u.order_id} by ${u.reviewer_id}`;
  };
  const revise = (r: { id: string; reviewer_id: string }) =>
    servicesOf(api.services, reviewsModule).reviews.revise(r.reviewer_id, r.id, { rating: 1 + Math.floor(rng() * 5), content: 'revised' });
  const moves: Move[] = [
    [2, () => sale(rng, w)],
    ...where((o) => o.status === 'ACCEPTED' && o.open === 0).flatMap((o): Move[] => [
      [1, () => ship(o).then(() => `ship ${o.id}`)],
      [0.5, () => cancel(o).then(() => `cancel ${o.id}`)],
    ]),
    ...where((o) => o.status === 'SHIPPED').map((o): Move => [1, () => receive(o).then(() => `receive ${o.id}`)]),
    // One case per order at a time, on orders past shipping (so a cancellation never meets an open case).
    ...where((o) => (o.status === 'SHIPPED' || o.status === 'RECEIVED') && o.open === 0).map((o): Move => [0.5, () => dispute(o)]),
    ...openCases.map((c): Move => [4, () => caseMove(rng, c.id)]),
    ...unreviewed.map((u): Move => [1, () => review(u)]),
    ...reviews.filter((r) => r.revisions === 0).map((r): Move => [0.3, () => revise(r).then(() => `revise ${r.id}`)]),
    ...reviews.map((r): Move => [
      0.3,
      () =>
        servicesOf(api.services, reviewsModule)
          .reviews.remove(r.reviewer_id, r.id)
          .then(() => `delete review ${r.id}`),
    ]),
    ...completed.map((p): Move => [0.5, () => createDefaultReviews(db(), p.id).then((n) => `${n} default reviews for ${p.id}`)]),
  ];
  try {
    return await weighted(rng, moves)();
  } catch (err) {
    // A refused move (a review already written, …) changes nothing; anything else is a failure.
    if (err instanceof DomainError) return `refused: ${err.code}`;
    throw err;
  }
}

/** The user summary's counters, as kept and as counted from their rows. */
const summaryCounters = (userId: string) =>
  rows<{ kept: unknown; counted: unknown }>(
    `SELECT json_build_object('purchases', u.purchases_count, 'sales', u.sales_count, 'reviews', u.reviews_count, 'ratingSum', u.rating_sum) AS kept,
            json_build_object(
              'purchases', (SELECT count(*) FROM purchases WHERE buyer_id = u.id),
              'sales', (SELECT count(*) FROM orders WHERE seller_id = u.id),
              'reviews', (SELECT count(*) FROM reviews WHERE reviewed_user_id = u.id AND deleted_at IS NULL),
              'ratingSum', (SELECT coalesce(sum(rating), 0) FROM reviews WHERE reviewed_user_id = u.id AND deleted_at IS NULL)) AS counted
       FROM users u WHERE u.id = $1`,
    [userId],
  );

/** Every cached figure of the world next to its recount; equal when nothing was forgotten. */
async function figures(w: World): Promise<{ cached: unknown; recounted: unknown }> {
  const noUnread = async () => ({ messages: 0, conversations: 0 });
  const fresh = { account: new AccountStatsService(db(), noUnread), seller: new SellerStatsService(db()) };
  const cached: Record<string, unknown> = {};
  const recounted: Record<string, unknown> = {};
  for (const userId of [...w.buyers, ...w.sellers]) {
    const { unread: _cached, ...account } = await servicesOf(api.services, accountModule).accountStats.get(userId);
    const { unread: _fresh, ...accountNow } = await fresh.account.get(userId);
    const [summary] = await summaryCounters(userId);
    cached[userId] = { account, summary: summary!.kept };
    recounted[userId] = { account: accountNow, summary: summary!.counted };
  }
  for (const sellerId of w.sellers) {
    cached[`seller ${sellerId}`] = await servicesOf(api.services, sellersModule).sellerStats.get(sellerId);
    recounted[`seller ${sellerId}`] = await fresh.seller.get(sellerId);
  }
  // Completing a purchase opens its review window, whichever path completed it, exactly once.
  const purchases = await rows<{ id: string; completed: boolean; windows: number }>(
    `SELECT p.id, p.status = 'COMPLETED' AS completed,
            (SELECT count(*)::int FROM workflow_starts s WHERE s.workflow_id = 'review-window:' || p.id) AS windows
       FROM purchases p WHERE p.buyer_id = ANY($1)`,
    [w.buyers],
  );
  for (const p of purchases) {
    cached[`purchase ${p.id}`] = { reviewWindows: p.windows };
    recounted[`purchase ${p.id}`] = { reviewWindows: p.completed ? 1 : 0 };
  }
  return { cached, recounted };
}

/** `path: cached X, rows Y` for every leaf where the two differ. */
function differences(cached: unknown, recounted: unknown, path = ''): string[] {
  if (typeof cached !== 'object' || cached === null) return cached === recounted ? [] : [`${path}: cached ${cached}, rows ${recounted}`];
  return Object.keys(cached).flatMap((key) =>
    differences((cached as Record<string, unknown>)[key], (recounted as Record<string, unknown>)[key], path ? `${path}.${key}` : key),
  );
}

describe('stats caches (property)', () => {
  it(`agree with a recount from the rows after every step of ${SEEDS} random sequences of ${STEPS} steps`, async () => {
    let moved = 0;
    for (let seed = 1; seed <= SEEDS; seed += 1) {
      const rng = prng(seed);
      const w = await newWorld();
      await figures(w); // the caches hold the empty world's answers
      const done: string[] = [];
      for (let n = 1; n <= STEPS; n += 1) {
        done.push(await step(rng, w));
        const { cached, recounted } = await figures(w);
        const wrong = differences(cached, recounted).map((d) => `seed ${seed}, step ${n} (${done.join('; ')}): ${d}`);
        expect(wrong).toEqual([]);
      }
      const { count } = await one<{ count: number }>(`SELECT count(*)::int AS count FROM stats_pending`);
      expect(count).toBe(0); // every transaction's notes were taken at its commit
      moved += done.filter((d) => !d.startsWith('refused') && !d.startsWith('nothing')).length;
    }
    // The sequences did move things: most steps were not refused.
    expect(moved).toBeGreaterThan(SEEDS * STEPS * 0.7);
    // 480 steps, each recounted: 9 s on a quiet 2-core host, 15 s alone on a busy one, and past the
    // default 60 s once while the host ran several suites at a load of 10.
  }, 180_000);
});

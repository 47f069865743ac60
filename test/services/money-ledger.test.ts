import { QueryFailedError } from 'typeorm';
import { newId } from '../../src/ids';
import { postLedger, sellerBalances } from '../../src/services/money/ledger';
import { PAYOUT_RUN_PAGE } from '../../src/services/money/payouts';
import { reconcileFigures } from '../../src/services/money/reconciliation';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { insertCase } from '../support/cases';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { commitPaidCheckout } from '../support/purchases';
import { prng } from '../support/random';
import { casesModule } from '../../src/modules/cases';
import { servicesOf } from '../../src/modules';

/** The money ledger on Postgres through the real services: its guarantees, and random histories. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const db = () => api.database.db;

/** Ships an order (as the seller would) and receives it as the buyer, through the order service. */
async function receive(orderId: string, buyerId: string): Promise<void> {
  await db().query(`UPDATE orders SET status = 'SHIPPED', shipped_at = now() WHERE id = $1`, [orderId]);
  await db().query(`UPDATE order_items SET status = 'SHIPPED' WHERE order_id = $1`, [orderId]);
  await api.services.orderUpdates.apply(orderId, { role: 'buyer', userId: buyerId }, { action: 'receive' });
}

/** A case on the order whose REFUND outcome of `amount` the buyer accepts, through the case change service. */
async function acceptRefund(orderId: string, amount: number): Promise<void> {
  const { caseId } = await insertCase(db(), orderId, 'BUYER', { items: [] });
  const outcomeId = newId();
  const outcome = { id: outcomeId, type: 'REFUND' as const, party: 'SELLER' as const };
  const options = { reviewWindowSeconds: 60, ...caseChangeStarts };
  await recordCaseChange(
    db(),
    {
      caseId,
      changeId: newId(),
      actor: 'SELLER',
      kind: 'propose',
      status: 'OPEN',
      outcomes: [{ ...outcome, status: 'PENDING' }],
      proposal: { ...outcome, amount, comment: '', deliveryAddress: null },
    },
    options,
  );
  const accept = {
    caseId,
    changeId: newId(),
    actor: 'BUYER' as const,
    kind: 'accept' as const,
    status: 'CLOSED' as const,
    outcomes: [{ ...outcome, status: 'ACCEPTED' as const }],
  };
  await recordCaseChange(db(), accept, options);
  await recordCaseChange(db(), { ...accept, changeId: newId() }, options); // a retried write under a new id refunds nothing twice
}

describe('ledger guarantees', () => {
  it('refuses at commit a transaction whose entries do not sum to zero, and any edit of an entry', async () => {
    const seller = await registerSeller(api);
    const unbalanced = db().transaction(async (tx) => {
      const id = newId();
      await tx.query(`INSERT INTO ledger_transactions (id, event, idempotency_key) VALUES ($1, 'PAYMENT', $2)`, [id, `t:${id}`]);
      await tx.query(`INSERT INTO ledger_entries (id, transaction_id, account, amount) VALUES ($1, $2, 'buyer_payments', -100)`, [
        newId(),
        id,
      ]);
      await tx.query(
        `INSERT INTO ledger_entries (id, transaction_id, account, seller_id, amount) VALUES ($1, $2, 'seller_pending', $3, 99)`,
        [newId(), id, seller.id],
      );
    });
    await expect(unbalanced).rejects.toThrow(/does not sum to zero/);

    await db().transaction((tx) =>
      postLedger(tx, {
        event: 'PAYMENT',
        idempotencyKey: 'guarantee-test',
        entries: [
          { account: 'buyer_payments', amount: -100 },
          { account: 'seller_pending', amount: 100, sellerId: seller.id },
        ],
      }),
    );
    await expect(db().query(`UPDATE ledger_entries SET amount = 1 WHERE seller_id = $1`, [seller.id])).rejects.toThrow(/append-only/);
    await expect(db().query(`DELETE FROM ledger_entries WHERE seller_id = $1`, [seller.id])).rejects.toThrow(QueryFailedError);
    // The same key again posts nothing; an unbalanced posting never reaches the database.
    const again = await db().transaction((tx) =>
      postLedger(tx, {
        event: 'PAYMENT',
        idempotencyKey: 'guarantee-test',
        entries: [
          { account: 'buyer_payments', amount: -5 },
          { account: 'refunds', amount: 5 },
        ],
      }),
    );
    expect(again).toBe(false);
    await expect(
      db().transaction((tx) =>
        postLedger(tx, { event: 'PAYMENT', idempotencyKey: 'bad', entries: [{ account: 'buyer_payments', amount: -5 }] }),
      ),
    ).rejects.toThrow(/sums to -5/);
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 100, available: 0 });
  });
});

describe('transfers route', () => {
  it("pages a seller's transfers newest first by cursor, refuses a foreign cursor, and shows no one else's", async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const buyer = await registerUser(api);
    const orderIds: string[] = [];
    for (const total of [1000, 2000, 3000]) {
      const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, total);
      await receive(orderId, buyer.id);
      orderIds.push(orderId);
    }
    await releaseOrderFunds(db(), orderIds[0]!);

    const first = (await api.http.get('/seller/transfers?size=2').set(seller.bearer).expect(200)).body;
    expect(Object.keys(first).sort()).toEqual(['items', 'nextCursor']);
    expect(first.items.map((t: { orderId: string }) => t.orderId)).toEqual([orderIds[2], orderIds[1]]);
    expect(first.items.map((t: { status: string }) => t.status)).toEqual(['PENDING', 'PENDING']);
    expect(first.nextCursor).toBe(first.items[1].id);
    const second = (await api.http.get(`/seller/transfers?size=2&cursor=${first.nextCursor}`).set(seller.bearer).expect(200)).body;
    expect(second.items).toEqual([expect.objectContaining({ orderId: orderIds[0], status: 'COMPLETED', amount: 1000 - 50 })]);
    expect(second.nextCursor).toBeNull();

    const foreign = await api.http.get(`/seller/transfers?cursor=${first.nextCursor}`).set(other.bearer).expect(400);
    expect(foreign.body.type).toBe('/problems/invalid-cursor');
    const malformed = await api.http.get('/seller/transfers?cursor=abc&size=0').set(seller.bearer).expect(400);
    expect(malformed.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['cursor', 'size']);
    expect((await api.http.get('/seller/transfers').set(other.bearer).expect(200)).body).toEqual({ items: [], nextCursor: null });
    // Nothing available: no payout run is promised.
    expect((await api.http.get('/seller/balance').set(other.bearer).expect(200)).body).toEqual({
      pending: 0,
      available: 0,
      currency: 'GBP',
      nextPayoutDate: null,
    });
    expect((await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body).toEqual({
      pending: 1900 + 2850,
      available: 950,
      currency: 'GBP',
      nextPayoutDate: expect.any(String),
    });
    await api.http.get('/seller/transfers').set(buyer.bearer).expect(403);
  });
});

describe('refunds of accepted REFUND outcomes', () => {
  it('refunds from pending before release, reverses from available after it, and gives the fee back in proportion', async () => {
    const seller = await registerSeller(api);
    const buyer = await registerUser(api);
    const { orderId, purchaseId } = await commitPaidCheckout(db(), buyer.id, seller.id, 2000); // fee 100, share 1900
    await receive(orderId, buyer.id);

    await acceptRefund(orderId, 500);
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 1900 - 475, available: 0 });
    await releaseOrderFunds(db(), orderId);
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 1425 });

    await acceptRefund(orderId, 5000); // more than is left: refunds the remaining 1500
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 0 });
    const [{ fee }] = await db().query(
      `SELECT sum(amount)::int AS fee FROM ledger_entries WHERE order_id = $1 AND account = 'platform_seller_fee'`,
      [orderId],
    );
    expect(fee).toBe(0);
    const [{ refunded }] = await db().query(
      `SELECT sum(amount)::int AS refunded FROM payment_refunds WHERE purchase_id = $1 AND status = 'SUCCEEDED'`,
      [purchaseId],
    );
    expect(refunded).toBe(2000);

    const order = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200)).body;
    expect(order.adjustments).toEqual([
      expect.objectContaining({ type: 'REFUND', kind: 'PARTIAL', amount: 500, currency: 'GBP' }),
      expect.objectContaining({ type: 'REFUND', kind: 'PARTIAL', amount: 1500 }),
    ]);
    expect(order.transfers).toEqual([
      expect.objectContaining({ type: 'TRANSFER', status: 'COMPLETED', amount: 1425 }),
      expect.objectContaining({ type: 'REVERSAL', status: 'COMPLETED', amount: 1425 }),
    ]);
    const purchase = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    expect(purchase.orders[0].adjustments).toEqual(order.adjustments);
    await acceptRefund(orderId, 100); // nothing left to refund
    expect((await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer)).body.adjustments).toHaveLength(2);
    const events = await db().query(
      `SELECT seller_id, data->>'amount' AS amount FROM outbox_events WHERE type = 'REFUND_CREATED' AND data->>'orderId' = $1 ORDER BY created_at`,
      [orderId],
    );
    expect(events).toEqual([
      { seller_id: seller.id, amount: '500' },
      { seller_id: seller.id, amount: '1500' },
    ]);
  });

  it('names a whole-order refund FULL and a delivery-charge refund DELIVERY', async () => {
    const seller = await registerSeller(api);
    const buyer = await registerUser(api);
    const full = await commitPaidCheckout(db(), buyer.id, seller.id, 1200);
    await acceptRefund(full.orderId, 1200);
    const delivery = await commitPaidCheckout(db(), buyer.id, seller.id, 1200);
    await db().query(`UPDATE orders SET delivery_charge = 150 WHERE id = $1`, [delivery.orderId]);
    await acceptRefund(delivery.orderId, 150);
    const kinds = await db().query(`SELECT kind FROM adjustments WHERE order_id = ANY($1) ORDER BY created_at`, [
      [full.orderId, delivery.orderId],
    ]);
    expect(kinds.map((k: { kind: string }) => k.kind)).toEqual(['FULL', 'DELIVERY']);
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 1140 - 150 + 7, available: 0 });
  });
});

/** Pays out everything the seller has available through the payout service; the bank answers `fails`. */
async function payOut(sellerId: string, runDate: string, fails = false): Promise<string> {
  await db().query(
    `INSERT INTO simulator_bank_accounts (seller_id, fails) VALUES ($1, $2) ON CONFLICT (seller_id) DO UPDATE SET fails = $2`,
    [sellerId, fails],
  );
  const payoutId = await api.services.sellerMoney.createPayout(sellerId, runDate);
  if (!payoutId) throw new Error('nothing to pay out');
  await api.services.sellerMoney.markPayoutInTransit(payoutId);
  return payoutId;
}

/** What the platform still carries for the seller's refunds: its loss account over their orders. */
async function outstandingLoss(sellerId: string): Promise<number> {
  const [{ lost }] = await db().query(
    `SELECT COALESCE(-sum(e.amount), 0)::int AS lost FROM ledger_entries e JOIN orders o ON o.id = e.order_id
      WHERE e.account = 'platform_refund_losses' AND o.seller_id = $1`,
    [sellerId],
  );
  return lost;
}

describe('refund losses recovered from later earnings', () => {
  it("repays the platform's loss from the seller's next releases first, as RECOVERY transfers of the lossy order", async () => {
    const seller = await registerSeller(api);
    const buyer = await registerUser(api);
    const a = await commitPaidCheckout(db(), buyer.id, seller.id, 2000); // fee 100, share 1900
    await receive(a.orderId, buyer.id);
    expect(await releaseOrderFunds(db(), a.orderId)).toBe('released');
    await api.services.sellerMoney.settlePayout(await payOut(seller.id, '2031-01-01'));
    // 1000 refunded after the money was paid out: the fee gives back 50, the seller's 950 is the platform's loss.
    await acceptRefund(a.orderId, 1000);
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 0 });
    expect(await outstandingLoss(seller.id)).toBe(950);

    const b = await commitPaidCheckout(db(), buyer.id, seller.id, 600); // share 570: all of it repays the loss
    await receive(b.orderId, buyer.id);
    expect(await releaseOrderFunds(db(), b.orderId)).toBe('released');
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 0 });
    expect(await outstandingLoss(seller.id)).toBe(380);

    const c = await commitPaidCheckout(db(), buyer.id, seller.id, 1000); // share 950: 380 repays the rest
    await receive(c.orderId, buyer.id);
    expect(await releaseOrderFunds(db(), c.orderId)).toBe('released');
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 570 });
    expect(await outstandingLoss(seller.id)).toBe(0);
    expect(await releaseOrderFunds(db(), c.orderId)).toBe('nothing-pending'); // again: nothing twice

    const { items: transfers, nextCursor } = (await api.http.get('/seller/transfers').set(seller.bearer).expect(200)).body;
    expect(nextCursor).toBeNull();
    expect(transfers.map((t: { type: string; orderId: string; amount: number }) => [t.type, t.orderId, t.amount])).toEqual([
      ['RECOVERY', a.orderId, 380],
      ['TRANSFER', c.orderId, 950],
      ['RECOVERY', a.orderId, 570],
      ['TRANSFER', b.orderId, 570],
      ['TRANSFER', a.orderId, 1900],
    ]);
    expect((await api.http.get(`/seller/orders/${a.orderId}`).set(seller.bearer).expect(200)).body.transfers).toEqual([
      expect.objectContaining({ type: 'TRANSFER', amount: 1900 }),
      expect.objectContaining({ type: 'RECOVERY', status: 'COMPLETED', amount: 570 }),
      expect.objectContaining({ type: 'RECOVERY', status: 'COMPLETED', amount: 380 }),
    ]);
    const recoveries = await db().query(
      `SELECT e.account, e.amount::int AS amount FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE t.event = 'LOSS_RECOVERED' AND e.order_id = $1 ORDER BY e.amount`,
      [a.orderId],
    );
    expect(recoveries).toEqual([
      { account: 'seller_available', amount: -570 },
      { account: 'seller_available', amount: -380 },
      { account: 'platform_refund_losses', amount: 380 },
      { account: 'platform_refund_losses', amount: 570 },
    ]);

    // The billing page shows the loss and its repayments, newest first, and nothing left owed.
    const { links } = (await api.http.get('/seller/dashboard').set(seller.bearer).expect(200)).body;
    const page = (await api.http.get(new URL(links.billing).pathname).expect(200)).text;
    const losses = [...page.matchAll(/<tr data-loss="([^"]+)">(.*?)<\/tr>/g)].map(([, orderId, row]) => [
      orderId,
      row!.match(/<td>([a-z][^<]*)<\/td>/)![1],
      row!.match(/<td class="money">([^<]*)<\/td>/)![1],
    ]);
    expect(losses).toEqual([
      [a.orderId, 'repaid from your earnings', '−£3.80'],
      [a.orderId, 'repaid from your earnings', '−£5.70'],
      [a.orderId, 'refund covered by the platform (already paid out)', '£9.50'],
    ]);
    expect(page).toContain('Still owed: <strong id="owed">£0.00</strong>');
  });

  it('repays it from a failed payout coming back to available', async () => {
    const seller = await registerSeller(api);
    const buyer = await registerUser(api);
    const a = await commitPaidCheckout(db(), buyer.id, seller.id, 2000);
    await receive(a.orderId, buyer.id);
    await releaseOrderFunds(db(), a.orderId);
    const payoutId = await payOut(seller.id, '2031-01-02', true);
    await acceptRefund(a.orderId, 1000); // the 1900 is in transit: 950 is the platform's loss
    expect(await outstandingLoss(seller.id)).toBe(950);
    expect(await api.services.sellerMoney.settlePayout(payoutId)).toBe('FAILED');
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 950 });
    expect(await outstandingLoss(seller.id)).toBe(0);
    expect((await api.http.get(`/seller/orders/${a.orderId}`).set(seller.bearer)).body.transfers).toEqual([
      expect.objectContaining({ type: 'TRANSFER', amount: 1900 }),
      expect.objectContaining({ type: 'RECOVERY', amount: 950 }),
    ]);
    expect(await api.services.sellerMoney.settlePayout(payoutId)).toBe('FAILED'); // settled already: nothing twice
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 950 });
  });
});

describe('a release held by an open case', () => {
  it('moves nothing while a case on the order is open, signals the release when it closes, then releases what is left', async () => {
    const seller = await registerSeller(api);
    const buyer = await registerUser(api);
    const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, 2000);
    await receive(orderId, buyer.id);
    const { caseId } = await insertCase(db(), orderId, 'BUYER', { items: [] });
    expect(await releaseOrderFunds(db(), orderId)).toBe('held-by-case');
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 1900, available: 0 });
    expect(await db().query(`SELECT status FROM transfers WHERE order_id = $1`, [orderId])).toEqual([{ status: 'PENDING' }]);

    const outcome = { id: newId(), type: 'REFUND' as const, party: 'SELLER' as const };
    const close = (kind: 'propose' | 'accept', status: 'OPEN' | 'CLOSED', s: 'PENDING' | 'ACCEPTED') =>
      recordCaseChange(
        db(),
        {
          caseId,
          changeId: newId(),
          actor: kind === 'propose' ? 'SELLER' : 'BUYER',
          kind,
          status,
          outcomes: [{ ...outcome, status: s }],
          ...(kind === 'propose' ? { proposal: { ...outcome, amount: 500, comment: '', deliveryAddress: null } } : {}),
        },
        { reviewWindowSeconds: 60, ...caseChangeStarts },
      );
    await close('propose', 'OPEN', 'PENDING');
    expect(
      await db().query(`SELECT 1 FROM workflow_starts WHERE workflow_id = $1 AND request_key <> ''`, [`funds-release:${orderId}`]),
    ).toEqual([]);
    await close('accept', 'CLOSED', 'ACCEPTED');
    const [signal] = await db().query(`SELECT request_key, options FROM workflow_starts WHERE workflow_id = $1 AND request_key <> ''`, [
      `funds-release:${orderId}`,
    ]);
    expect(signal).toMatchObject({
      request_key: `case-closed:${caseId}`,
      options: expect.objectContaining({ signal: { name: 'orderCaseClosed', args: [] } }),
    });

    expect(await releaseOrderFunds(db(), orderId)).toBe('released');
    // 500 refunded (25 of it the fee given back) before the release: 1900 − 475 is released.
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 1425 });
  });
});

describe('random histories (property)', () => {
  it.each([3, 4, 10, 14])('keeps every transaction balanced and every seller balance equal to its rows (seed %i)', async (seed) => {
    const rnd = prng(seed);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const sellers: TestUser[] = [await registerSeller(api), await registerSeller(api)];
    const buyer = await registerUser(api);
    const paid: Array<{ orderId: string; sellerId: string; total: number }> = [];
    const received: string[] = [];
    const refunds = new Map<string, number>();
    let buyerPaid = 0;
    // Payouts and releases are frequent enough that refunds of money already paid out (platform
    // losses) and their recoveries happen; the seeds are ones whose histories reach both (checked at the end).
    for (let step = 0; step < 50; step += 1) {
      const op = rnd();
      if (op < 0.25 || paid.length === 0) {
        const seller = pick(sellers);
        const total = 1 + Math.floor(rnd() * 50_000);
        const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, total);
        paid.push({ orderId, sellerId: seller.id, total });
        buyerPaid += total;
      } else if (op < 0.45) {
        const order = pick(paid);
        const [{ status }] = await db().query(`SELECT status FROM orders WHERE id = $1`, [order.orderId]);
        if (status === 'ACCEPTED') {
          await receive(order.orderId, buyer.id);
          received.push(order.orderId);
          if (rnd() < 0.6) await releaseOrderFunds(db(), order.orderId); // the hold has passed
        }
      } else if (op < 0.62) {
        // Refunds of received orders (released, perhaps paid out) as often as of any order.
        const releasedId = received.length > 0 && rnd() < 0.5 ? pick(received) : null;
        const order = releasedId ? paid.find((p) => p.orderId === releasedId)! : pick(paid);
        const amount = 1 + Math.floor(rnd() * order.total);
        const [{ refunded }] = await db().query(`SELECT COALESCE(sum(amount), 0)::int AS refunded FROM adjustments WHERE order_id = $1`, [
          order.orderId,
        ]);
        await acceptRefund(order.orderId, amount);
        refunds.set(order.orderId, refunded + Math.min(amount, order.total - refunded));
      } else if (op < 0.66) {
        const order = pick(paid);
        const [{ status }] = await db().query(`SELECT status FROM orders WHERE id = $1`, [order.orderId]);
        if (status === 'ACCEPTED') {
          await api.services.orderUpdates.apply(order.orderId, { role: 'seller', userId: order.sellerId }, { action: 'cancel' });
          refunds.set(order.orderId, order.total); // the whole order, whatever a case refunded before
        }
      } else if (op < 0.84) {
        const seller = pick(sellers);
        await db().query(
          `INSERT INTO simulator_bank_accounts (seller_id, fails) VALUES ($1, $2) ON CONFLICT (seller_id) DO UPDATE SET fails = $2`,
          [seller.id, rnd() < 0.3],
        );
        const runDate = new Date(Date.UTC(2030, 0, 1 + step)).toISOString().slice(0, 10);
        const payoutId = await api.services.sellerMoney.createPayout(seller.id, runDate);
        if (payoutId) {
          await api.services.sellerMoney.markPayoutInTransit(payoutId);
          await api.services.sellerMoney.settlePayout(payoutId);
        }
      } else if (received.length > 0) {
        await releaseOrderFunds(db(), pick(received)); // a second release of one order must change nothing
      }

      const unbalanced = await db().query(`SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`);
      expect(unbalanced).toEqual([]);
      for (const seller of sellers) {
        const [rows] = await db().query(
          `SELECT COALESCE(sum(amount) FILTER (WHERE account = 'seller_pending'), 0)::int AS pending,
                  COALESCE(sum(amount) FILTER (WHERE account = 'seller_available'), 0)::int AS available
             FROM ledger_entries WHERE seller_id = $1`,
          [seller.id],
        );
        const balance = (await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body;
        // A payout run is due only for money available to pay out.
        expect(balance).toEqual({ ...rows, currency: 'GBP', nextPayoutDate: rows.available > 0 ? expect.any(String) : null });
        expect(balance.available).toBeGreaterThanOrEqual(0);
        expect(balance.pending).toBeGreaterThanOrEqual(0);
        // What the seller is owed is each order's total less the 5% fee, less what was refunded
        // net of the fee given back in proportion, however it is split between pending and available.
        const expected = paid
          .filter((p) => p.sellerId === seller.id)
          .reduce((sum, p) => {
            const fee = Math.floor((p.total * 500) / 10_000);
            const refunded = refunds.get(p.orderId) ?? 0;
            return sum + p.total - fee - (refunded - Math.floor((fee * refunded) / p.total));
          }, 0);
        const [out] = await db().query(
          `SELECT COALESCE(sum(amount), 0)::int AS paid FROM payouts WHERE seller_id = $1 AND status = 'PAID'`,
          [seller.id],
        );
        const [lost] = await db().query(
          `SELECT COALESCE(-sum(e.amount), 0)::int AS lost FROM ledger_entries e JOIN orders o ON o.id = e.order_id
            WHERE e.account = 'platform_refund_losses' AND o.seller_id = $1`,
          [seller.id],
        );
        // Paid out money has left; a refund of it the seller could no longer cover was the platform's
        // (net of what later earnings repaid).
        expect(balance.pending + balance.available).toBe(expected - out.paid + lost.lost);
        // Never more recovered than was lost on any order; and while the platform still carries a
        // loss for the seller nothing of theirs sits available: every credit repays it first.
        const overRecovered = await db().query(
          `SELECT e.order_id FROM ledger_entries e JOIN orders o ON o.id = e.order_id
            WHERE e.account = 'platform_refund_losses' AND o.seller_id = $1 GROUP BY e.order_id HAVING sum(e.amount) > 0`,
          [seller.id],
        );
        expect(overRecovered).toEqual([]);
        if (lost.lost > 0) expect(balance.available).toBe(0);
      }
      const [{ payments }] = await db().query(
        `SELECT COALESCE(sum(e.amount), 0)::int AS payments FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
          JOIN purchases p ON p.id = t.purchase_id WHERE p.buyer_id = $1 AND e.account = 'buyer_payments'`,
        [buyer.id],
      );
      expect(-payments).toBe(buyerPaid);
    }
    // The workload did reach the paths under test: losses, and recoveries of them.
    const [{ losses, recoveries }] = await db().query(
      `SELECT count(*) FILTER (WHERE e.amount < 0 AND t.event = 'REFUND')::int AS losses,
              count(*) FILTER (WHERE t.event = 'LOSS_RECOVERED')::int AS recoveries
         FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id JOIN orders o ON o.id = e.order_id
        WHERE e.account = 'platform_refund_losses' AND o.seller_id = ANY($1)`,
      [sellers.map((s) => s.id)],
    );
    expect({ losses: losses > 0, recoveries: recoveries > 0 }).toEqual({ losses: true, recoveries: true });
    // Every figure the service reports for these sellers and this buyer agrees with the ledger
    // (the `reconcile` command's checks; scoped, since other tests here post hand-made rows).
    const scope = { sellerIds: sellers.map((s) => s.id), buyerIds: [buyer.id] };
    expect(await reconcileFigures(db(), { sellerFeeBps: 500, scope })).toEqual([]);
  });
});

/** Every seller a payout run of `runDate` would start a payout for, page by page as the run reads them. */
async function payoutRunSellers(runDate: string): Promise<string[]> {
  const sellers: string[] = [];
  let after: string | null = null;
  do {
    const page = await api.services.sellerMoney.payoutRunPage(runDate, after);
    for (const start of page.starts) {
      expect(start).toMatchObject({ workflowType: 'payoutWorkflow', workflowId: `payout:${start.workflowId.split(':')[1]}:${runDate}` });
      sellers.push(start.workflowId.split(':')[1]!);
    }
    after = page.next;
  } while (after !== null);
  return sellers;
}

describe('the payout run', () => {
  it('reads the active sellers with money available a page at a time, each once, in seller order', async () => {
    // 2.5 pages of sellers with money available (balanced ledger transactions), plus one suspended and one at zero.
    const n = Math.floor(PAYOUT_RUN_PAGE * 2.5);
    const ids: Array<{ id: string }> = await db().query(
      `WITH u AS (INSERT INTO users (id, email, username, password_hash)
                  SELECT gen_random_uuid(), 'run' || i || '@example.com', 'run' || i, 'x' FROM generate_series(1, $1::int + 2) i
                  RETURNING id)
       INSERT INTO seller_accounts (user_id) SELECT id FROM u RETURNING user_id AS id`,
      [n],
    );
    for (const [i, { id }] of ids.entries()) {
      const tx = newId();
      await db().query(`INSERT INTO ledger_transactions (id, event, idempotency_key) VALUES ($1::uuid, 'test', $1::text)`, [tx]);
      const amount = i === n + 1 ? 0 : 100 + i;
      if (amount > 0) {
        await db().query(
          `INSERT INTO ledger_entries (id, transaction_id, account, seller_id, amount) VALUES ($1, $2, 'seller_available', $3, $4), ($5, $2, 'refunds', NULL, -$4)`,
          [newId(), tx, id, amount, newId()],
        );
      }
    }
    await db().query(`UPDATE seller_accounts SET status = 'SUSPENDED' WHERE user_id = $1`, [ids[n]!.id]);
    const due = ids.slice(0, n).map((r) => r.id);

    const first = await api.services.sellerMoney.payoutRunPage('2031-04-01', null);
    expect(first.starts).toHaveLength(PAYOUT_RUN_PAGE);
    expect(first.next).toBe(first.starts.at(-1)!.workflowId.split(':')[1]);
    const all = await payoutRunSellers('2031-04-01');
    // Other tests' sellers may be due too; of this test's, exactly the active ones with money, in order.
    expect(all.filter((id) => ids.some((r) => r.id === id))).toEqual([...due].sort());
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('a suspended seller', () => {
  it('is paid out nothing while suspended (the money waits in available, releases go on) and everything once reinstated', async () => {
    const seller = await registerSeller(api);
    const operator = await registerUser(api, 'operator');
    const buyer = await registerUser(api);
    const first = await commitPaidCheckout(db(), buyer.id, seller.id, 1000);
    await receive(first.orderId, buyer.id);
    await releaseOrderFunds(db(), first.orderId);
    const second = await commitPaidCheckout(db(), buyer.id, seller.id, 2000);
    await receive(second.orderId, buyer.id);

    await servicesOf(api.services, casesModule).operators.suspendSeller(operator.id, seller.id, 'Counterfeit cards reported');
    const runDate = '2031-03-01';
    expect(await payoutRunSellers(runDate)).not.toContain(seller.id); // no payout for a suspended seller
    // A payout requested before the suspension creates nothing either.
    expect(await api.services.sellerMoney.createPayout(seller.id, runDate)).toBeNull();
    // The hold still ends: the second order's share joins the first in available.
    expect(await releaseOrderFunds(db(), second.orderId)).toBe('released');
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 950 + 1900 });

    await servicesOf(api.services, casesModule).operators.reinstateSeller(operator.id, seller.id, 'Cleared');
    const payoutId = await api.services.sellerMoney.createPayout(seller.id, runDate);
    expect(payoutId).not.toBeNull();
    expect(await sellerBalances(db().manager, seller.id)).toEqual({ pending: 0, available: 0 });
  });
});

import { newId } from '../../src/ids';
import { recordCaseChange, type CaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { sellerBalances } from '../../src/services/money/ledger';
import { createPayout } from '../../src/services/money/payouts';
import { reconcileFigures } from '../../src/services/money/reconciliation';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase } from '../support/cases';
import { commitPaidCheckout } from '../support/purchases';

/**
 * Refunds racing each other on Postgres, through the real services: a seller cancelling an
 * unshipped order, the buyer accepting a full REFUND on each of two cases of it, and a payout run
 * for the seller, all at once, many times. Whatever order the transactions commit in, an order is
 * never refunded beyond what was paid for it, the seller's available balance never goes negative,
 * and every ledger transaction sums to zero. (Before the order was locked ahead of reading what
 * was refunded, a refund committed during the lock wait went unseen: twice the order total.)
 * REFUND_RACE_TRIALS sets the number of trials (50 by default; the check ran 200).
 */
const TRIALS = Number(process.env.REFUND_RACE_TRIALS ?? 50);
const TOTAL = 1251;

let api: TestApi;
let seller: TestUser;
let buyer: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  seller = await registerSeller(api);
  buyer = await registerUser(api);
});
afterAll(() => api.close());

const db = () => api.database.db;
const options = { reviewWindowSeconds: 60, ...caseChangeStarts };

/** A case on the order with a pending REFUND of the whole order proposed by the seller; returns its accept change. */
async function caseWithFullRefund(orderId: string): Promise<CaseChange> {
  const { caseId } = await insertCase(db(), orderId, 'BUYER', { items: [] });
  const outcome = { id: newId(), type: 'REFUND' as const, party: 'SELLER' as const };
  await recordCaseChange(
    db(),
    {
      caseId,
      changeId: newId(),
      actor: 'SELLER',
      kind: 'propose',
      status: 'OPEN',
      outcomes: [{ ...outcome, status: 'PENDING' }],
      proposal: { ...outcome, amount: TOTAL, comment: '', deliveryAddress: null },
    },
    options,
  );
  return { caseId, changeId: newId(), actor: 'BUYER', kind: 'accept', status: 'CLOSED', outcomes: [{ ...outcome, status: 'ACCEPTED' }] };
}

/** Ships and receives the order and releases its funds, so a refund must come out of available. */
async function released(orderId: string): Promise<void> {
  await db().query(`UPDATE orders SET status = 'SHIPPED', shipped_at = now() WHERE id = $1`, [orderId]);
  await api.services.orderUpdates.apply(orderId, { role: 'buyer', userId: buyer.id }, { action: 'receive' });
  expect(await releaseOrderFunds(db(), orderId)).toBe('released');
}

it(
  `never refunds an order beyond what was paid, whatever order ${TRIALS} racing cancellations, case refunds and payouts commit in`,
  async () => {
    // Money the seller already has available, for the payouts to race the refunds for.
    const earlier = await commitPaidCheckout(db(), buyer.id, seller.id, 5000);
    await released(earlier.orderId);
    const orderIds: string[] = [];
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, TOTAL);
      orderIds.push(orderId);
      // Odd trials race after the release: no cancellation, and refunds reverse available money.
      const afterRelease = trial % 2 === 1;
      if (afterRelease) await released(orderId);
      const [first, second] = [await caseWithFullRefund(orderId), await caseWithFullRefund(orderId)];
      const runDate = new Date(Date.UTC(2030, 0, 1 + trial)).toISOString().slice(0, 10);
      const results = await Promise.allSettled([
        afterRelease
          ? Promise.resolve(null)
          : api.services.orderUpdates.apply(orderId, { role: 'seller', userId: seller.id }, { action: 'cancel' }),
        recordCaseChange(db(), first, options),
        recordCaseChange(db(), second, options),
        createPayout(db(), seller.id, runDate, 1),
      ]);
      // No deadlock, no constraint violation: every writer succeeds and the later refunds refund
      // nothing, except a cancellation that comes after a case refunded the order in full (409).
      const [cancel, ...others] = results;
      expect(others.filter((r) => r.status === 'rejected')).toEqual([]);
      const cancelled = cancel!.status === 'fulfilled' && !afterRelease;
      if (cancel!.status === 'rejected') expect(cancel!.reason).toMatchObject({ kind: 'conflict', code: 'order-refunded' });

      const [order]: Array<{ refunded: number; adjusted: number; refund_entries: number; status: string }> = await db().query(
        `SELECT o.refunded, o.status,
              (SELECT COALESCE(sum(amount), 0)::int FROM adjustments WHERE order_id = o.id) AS adjusted,
              (SELECT COALESCE(sum(e.amount), 0)::int FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                WHERE t.order_id = o.id AND e.account = 'refunds') AS refund_entries
         FROM orders o WHERE o.id = $1`,
        [orderId],
      );
      expect(order).toEqual({ refunded: TOTAL, adjusted: TOTAL, refund_entries: TOTAL, status: cancelled ? 'CANCELLED' : 'REFUNDED' });
      expect((await sellerBalances(db().manager, seller.id)).available).toBeGreaterThanOrEqual(0);
    }

    const unbalanced = await db().query(
      `SELECT transaction_id FROM ledger_entries GROUP BY transaction_id, currency HAVING sum(amount) <> 0`,
    );
    expect(unbalanced).toEqual([]);
    const [refunds]: Array<{ count: number }> = await db().query(
      `SELECT count(*)::int AS count FROM adjustments WHERE order_id = ANY($1) AND type = 'REFUND'`,
      [orderIds],
    );
    expect(refunds!.count).toBe(TRIALS); // one refund per order, whoever won
    // Every reported figure (balances, transfers, refunded amounts, stats) agrees with the ledger.
    expect(await reconcileFigures(db(), { sellerFeeBps: 500 })).toEqual([]);
  },
  TRIALS * 2_000,
);

import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { createCaseActivities } from '../../activities/cases';
import { classifyFailures } from '../../activities/failures';
import { DATA_REFUSED } from '../../src/domain/failure-types';
import type { CaseChange, RecordedChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase, insertPaidOrder } from '../support/cases';

let api: TestApi;
let buyer: TestUser;
let seller: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  buyer = await registerUser(api, 'casebuyer');
  seller = await registerSeller(api, 'caseseller');
});
afterAll(() => api.close());

// Run as a real activity would (with an activity context): a closing case may open a review window.
const record = (c: CaseChange): Promise<RecordedChange | null> =>
  new MockActivityEnvironment().run(
    createCaseActivities({ db: api.database.db, reviewWindowSeconds: api.config.reviews.windowSeconds, starts: caseChangeStarts })
      .recordCaseChange,
    c,
  );
const query = <T>(sql: string, args: unknown[]): Promise<T[]> => api.database.db.query(sql, args);
const change = (caseId: string, c: Partial<CaseChange>): CaseChange => ({
  caseId,
  changeId: randomUUID(),
  actor: 'SELLER',
  kind: 'propose',
  status: 'OPEN',
  outcomes: [],
  ...c,
});

async function openedCase() {
  const order = await insertPaidOrder(api.database.db, buyer.id, seller.id);
  const opened = await insertCase(api.database.db, order.orderId, 'BUYER', { items: [{ id: order.itemIds[0]!, quantity: 1 }] });
  return { ...order, caseId: opened.caseId };
}

describe('recordCaseChange (on Postgres)', () => {
  it('stores a proposal once and tells the other party, even when the activity is retried', async () => {
    const { caseId } = await openedCase();
    const outcomeId = randomUUID();
    const c = change(caseId, {
      proposal: { id: outcomeId, type: 'REFUND', amount: 700, comment: 'sorry', deliveryAddress: null },
      outcomes: [{ id: outcomeId, type: 'REFUND', party: 'SELLER', status: 'PENDING' }],
    });
    const first = await record(c);
    const retry = await record(c);
    expect(retry).toEqual(first);
    const outcomes = await query<{ id: string; status: string; amount: number; party: string }>(
      `SELECT id, status, amount, party FROM case_outcomes WHERE case_id = $1`,
      [caseId],
    );
    expect(outcomes).toEqual([{ id: outcomeId, status: 'PENDING', amount: 700, party: 'SELLER' }]);
    const mails = await query<{ to: string; kind: string }>(`SELECT to_address AS "to", kind FROM email_messages WHERE id = ANY($1)`, [
      first!.messageIds,
    ]);
    expect(mails).toEqual([{ to: buyer.email, kind: 'case-update' }]);
  });

  it('closes the case on an accepted REFUND and completes the purchase when every order is received', async () => {
    const { caseId, purchaseId, orderId } = await openedCase();
    await api.database.db.query(`UPDATE orders SET status = 'RECEIVED' WHERE id = $1`, [orderId]);
    const outcomeId = randomUUID();
    const pending = [{ id: outcomeId, type: 'REFUND' as const, party: 'SELLER' as const, status: 'PENDING' as const }];
    await record(
      change(caseId, { proposal: { id: outcomeId, type: 'REFUND', amount: 0, comment: '', deliveryAddress: null }, outcomes: pending }),
    );
    const closed = await record(
      change(caseId, { actor: 'BUYER', kind: 'accept', status: 'CLOSED', outcomes: [{ ...pending[0]!, status: 'ACCEPTED' }] }),
    );
    expect(closed!.completedPurchaseId).toBe(purchaseId);
    const [row] = await query<{ status: string; closed: boolean }>(
      `SELECT status, closed_at IS NOT NULL AS closed FROM cases WHERE id = $1`,
      [caseId],
    );
    expect(row).toEqual({ status: 'CLOSED', closed: true });
    const [purchase] = await query<{ status: string }>(`SELECT status FROM purchases WHERE id = $1`, [purchaseId]);
    expect(purchase!.status).toBe('COMPLETED');
    // Completing opened the review window, in the same transaction, once.
    const windows = await query(`SELECT 1 FROM workflow_starts WHERE workflow_id = $1`, [`review-window:${purchaseId}`]);
    expect(windows).toHaveLength(1);
  });

  it("counts the seller's unclosed cases in seller stats, fresh on open and close", async () => {
    const stats = () => api.http.get('/seller/stats').set(seller.bearer).expect(200);
    const before = (await stats()).body.cases.open;
    const { caseId } = await openedCase();
    expect((await stats()).body.cases.open).toBe(before + 1);
    await record(change(caseId, { actor: 'OPERATOR', kind: 'operator-close', status: 'CLOSED' }));
    expect((await stats()).body.cases.open).toBe(before);
  });

  it('leaves the purchase PAID when a case closes while an order is not yet received', async () => {
    const { caseId, purchaseId } = await openedCase();
    const closed = await record(change(caseId, { actor: 'OPERATOR', kind: 'operator-close', status: 'CLOSED' }));
    expect(closed!.completedPurchaseId).toBeNull();
    const [purchase] = await query<{ status: string }>(`SELECT status FROM purchases WHERE id = $1`, [purchaseId]);
    expect(purchase!.status).toBe('PAID');
  });

  it('marks an automatic escalation and tells both parties', async () => {
    const { caseId } = await openedCase();
    const result = await record(change(caseId, { actor: 'SYSTEM', kind: 'auto-escalate', status: 'ESCALATED' }));
    const [row] = await query<{ status: string; escalated: boolean }>(
      `SELECT status, escalated_at IS NOT NULL AS escalated FROM cases WHERE id = $1`,
      [caseId],
    );
    expect(row).toEqual({ status: 'ESCALATED', escalated: true });
    const mails = await query<{ to: string }>(`SELECT to_address AS "to" FROM email_messages WHERE id = ANY($1)`, [result!.messageIds]);
    expect(mails.map((m) => m.to).sort()).toEqual([buyer.email, seller.email].sort());
  });

  it('a comment Postgres cannot store is a non-retryable data-refused failure once classified', async () => {
    const { caseId } = await openedCase();
    const outcomeId = randomUUID();
    const activities = classifyFailures(
      createCaseActivities({ db: api.database.db, reviewWindowSeconds: api.config.reviews.windowSeconds, starts: caseChangeStarts }),
    );
    const c = change(caseId, {
      proposal: { id: outcomeId, type: 'REFUND', amount: 1, comment: 'c\u0000', deliveryAddress: null },
      outcomes: [{ id: outcomeId, type: 'REFUND', party: 'SELLER', status: 'PENDING' }],
    });
    const err = await new MockActivityEnvironment().run(activities.recordCaseChange, c).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: DATA_REFUSED, nonRetryable: true });
    expect(await query(`SELECT 1 FROM case_outcomes WHERE id = $1`, [outcomeId])).toEqual([]);
  });

  it('answers null for a case that does not exist (its opening rolled back)', async () => {
    expect(await record(change(randomUUID(), { kind: 'escalate', status: 'ESCALATED' }))).toBeNull();
  });
});

import { caseNextActions } from '../../src/domain/cases/case-next-actions';
import { orderNextActions } from '../../src/domain/orders/order-next-actions';

/** Whose move an order or a case waits for, and by when: the pure rules behind both views' `nextActions`. */
const DAY = 86_400;
const periods = { dispatchSeconds: 3 * DAY, cancellationAnswerSeconds: 2 * DAY, decisionSeconds: 3 * DAY };
const at = (iso: string) => new Date(iso);
const created = at('2026-01-01T10:00:00Z');

describe('orderNextActions', () => {
  it('ACCEPTED: the seller ships by the dispatch date; a pending request adds cancel or decline by the answer date', () => {
    const order = { status: 'ACCEPTED' as const, createdAt: created, autoReceiptAt: null, cancellationRequest: null };
    expect(orderNextActions(order, periods)).toEqual([
      { party: 'SELLER', action: 'ship', dueAt: at('2026-01-04T10:00:00Z'), afterDue: null },
    ]);
    const requestedAt = at('2026-01-02T08:00:00Z');
    const pending = { ...order, cancellationRequest: { status: 'PENDING' as const, requestedAt } };
    expect(orderNextActions(pending, periods).map((n) => [n.action, n.dueAt?.toISOString()])).toEqual([
      ['cancel', '2026-01-04T08:00:00.000Z'],
      ['decline-cancel', '2026-01-04T08:00:00.000Z'],
      ['ship', '2026-01-04T10:00:00.000Z'],
    ]);
    const declined = { ...order, cancellationRequest: { status: 'DECLINED' as const, requestedAt } };
    expect(orderNextActions(declined, periods).map((n) => n.action)).toEqual(['ship']);
  });

  it('SHIPPED: the buyer receives by the automatic receipt, which happens by itself; closed orders wait for nobody', () => {
    const autoReceiptAt = at('2026-01-25T00:00:00Z');
    const shipped = { status: 'SHIPPED' as const, createdAt: created, autoReceiptAt, cancellationRequest: null };
    expect(orderNextActions(shipped, periods)).toEqual([
      { party: 'BUYER', action: 'receive', dueAt: autoReceiptAt, afterDue: 'The order is received automatically.' },
    ]);
    for (const status of ['RECEIVED', 'CANCELLED', 'REFUNDED'] as const)
      expect(orderNextActions({ ...shipped, status, autoReceiptAt: null }, periods)).toEqual([]);
  });
});

describe('caseNextActions', () => {
  const escalatesAt = at('2026-01-08T10:00:00Z');
  const base = { escalatesAt, escalatedAt: null };
  const outcome = (party: 'BUYER' | 'SELLER', status: 'PENDING' | 'REJECTED' | 'ACCEPTED') => ({
    id: `${party}-${status}`,
    type: 'REFUND' as const,
    party,
    status,
  });

  it('OPEN with nothing pending: either party proposes before the case escalates by itself', () => {
    const moves = caseNextActions({ ...base, status: 'OPEN', outcomes: [outcome('SELLER', 'REJECTED')] }, periods);
    expect(moves.map((m) => [m.party, m.action, m.dueAt])).toEqual([
      ['BUYER', 'propose', escalatesAt],
      ['SELLER', 'propose', escalatesAt],
    ]);
    expect(moves.every((m) => m.afterDue === 'The case escalates to an operator, who decides it.')).toBe(true);
  });

  it('a pending proposal waits for the other party; proposals from both sides wait for both', () => {
    expect(
      caseNextActions({ ...base, status: 'REMEDIATION', outcomes: [outcome('BUYER', 'PENDING')] }, periods).map((m) => m.party),
    ).toEqual(['SELLER']);
    const both = [outcome('BUYER', 'PENDING'), outcome('SELLER', 'PENDING')];
    expect(caseNextActions({ ...base, status: 'OPEN', outcomes: both }, periods).map((m) => [m.party, m.action])).toEqual([
      ['SELLER', 'accept'],
      ['BUYER', 'accept'],
    ]);
  });

  it('ESCALATED: an operator decides within the decision period; SETTLED: the seller resolves; CLOSED: nobody', () => {
    const escalatedAt = at('2026-01-05T12:00:00Z');
    expect(caseNextActions({ status: 'ESCALATED', outcomes: [], escalatesAt: null, escalatedAt }, periods)).toEqual([
      { party: 'OPERATOR', action: 'decide', dueAt: at('2026-01-08T12:00:00Z'), afterDue: null },
    ]);
    // The parties may still agree meanwhile: a pending proposal stays the other side's move, with no clock.
    expect(
      caseNextActions({ status: 'ESCALATED', outcomes: [outcome('SELLER', 'PENDING')], escalatesAt: null, escalatedAt }, periods)[1],
    ).toEqual({ party: 'BUYER', action: 'accept', dueAt: null, afterDue: null });
    expect(
      caseNextActions({ status: 'SETTLED', outcomes: [outcome('BUYER', 'ACCEPTED')], escalatesAt: null, escalatedAt: null }, periods),
    ).toEqual([{ party: 'SELLER', action: 'resolve', dueAt: null, afterDue: null }]);
    expect(caseNextActions({ status: 'CLOSED', outcomes: [], escalatesAt: null, escalatedAt: null }, periods)).toEqual([]);
  });
});

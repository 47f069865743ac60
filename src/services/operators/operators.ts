import type { DataSource, EntityManager } from 'typeorm';
import type { CaseState, OperatorDecision } from '../../domain/cases/machine';
import type { Periods } from '../../domain/deadlines';
import { loadCaseViews, type CaseView } from '../cases/case-view';
import { conflict, notFound } from '../errors';
import { pageOf, type Page } from '../paging';
import { SqlFilter } from '../sql-filter';
import { closeSellerCheckouts } from '../checkout/checkouts';
import { recordOperatorAction, type AuditSubject } from './audit';

/** Sends an operator's decision to `case:{caseId}`: the `operatorDecision` Update the Temporal CLI also uses. */
export interface CaseDecisions {
  decide(caseId: string, decision: OperatorDecision): Promise<CaseState>;
}

export type OperatorCaseView = CaseView & { sellerId: string; buyerId: string; escalatedAt: Date | null };

export interface OperatorCaseQuery {
  page: number;
  size: number;
  status?: string[];
  reason?: string[];
  sellerId?: string;
  /** Age: opened at or before / after these instants. */
  openedBefore?: Date;
  openedAfter?: Date;
}

export interface SellerStandingView {
  userId: string;
  status: 'ACTIVE' | 'SUSPENDED';
  reason: string | null;
  changedAt: Date | null;
  changedBy: string | null;
}

export interface AuditEntry {
  id: string;
  operatorId: string;
  action: string;
  subjectType: AuditSubject;
  subjectId: string;
  reason: string;
  detail: Record<string, unknown>;
  createdAt: Date;
}

export interface AuditQuery {
  page: number;
  size: number;
  operatorId?: string;
  subjectType?: string;
  subjectId?: string;
}

const STANDING = `user_id AS "userId", status, status_reason AS "reason", status_changed_at AS "changedAt", status_changed_by AS "changedBy"`;

/**
 * What marketplace operators do over HTTP (docs/sellers-operators.md): search cases across
 * sellers, decide escalated cases, suspend and reinstate sellers. Every action is written to
 * the append-only `operator_audit_log` with who did it and why.
 */
export class Operators {
  constructor(
    private readonly db: DataSource,
    private readonly cases: CaseDecisions,
    private readonly periods: Periods,
  ) {}

  /** Cases of every seller, filtered; oldest first, so the longest-waiting surface first. */
  async listCases(q: OperatorCaseQuery): Promise<Page<OperatorCaseView>> {
    const where = new SqlFilter();
    if (q.status?.length) where.add('status = ANY($?)', q.status);
    if (q.reason?.length) where.add('reason = ANY($?)', q.reason);
    if (q.sellerId) where.add('seller_id = $?', q.sellerId);
    if (q.openedBefore) where.add('created_at <= $?', q.openedBefore);
    if (q.openedAfter) where.add('created_at >= $?', q.openedAfter);
    // The count binds the filters' values only: taken before the page's LIMIT and OFFSET are bound.
    const counted: Promise<[{ total: number }]> = this.db.query(`SELECT count(*)::int AS total FROM cases WHERE ${where.sql()}`, [
      ...where.params,
    ]);
    const rows: Array<{ id: string; sellerId: string; buyerId: string; escalatedAt: Date | null }> = await this.db.query(
      `SELECT id, seller_id AS "sellerId", buyer_id AS "buyerId", escalated_at AS "escalatedAt" FROM cases
        WHERE ${where.sql()} ORDER BY created_at, id LIMIT ${where.param(q.size)} OFFSET ${where.param((q.page - 1) * q.size)}`,
      where.params,
    );
    const [views, [{ total }]] = await Promise.all([this.withParties(rows), counted]);
    return pageOf(views, total, q);
  }

  async getCase(caseId: string): Promise<OperatorCaseView> {
    const rows = await this.db.query(
      `SELECT id, seller_id AS "sellerId", buyer_id AS "buyerId", escalated_at AS "escalatedAt" FROM cases WHERE id = $1`,
      [caseId],
    );
    const [view] = await this.withParties(rows);
    if (!view) throw notFound('Case');
    return view;
  }

  /**
   * Decides an escalated case through its workflow (which refuses anything but ESCALATED, 409),
   * then records the decision. A refused decision changed nothing and is not an action.
   */
  async decideCase(operatorId: string, caseId: string, decision: OperatorDecision['decision'], reason: string): Promise<OperatorCaseView> {
    const before = await this.getCase(caseId);
    if (before.status === 'CLOSED') throw conflict('case-closed', 'The case is closed.');
    // Refused here too, not only by the workflow's validator: a case just opened may have no
    // workflow yet (it starts from the start outbox), and its absence must not read as "closed".
    if (before.status !== 'ESCALATED') throw conflict('case-not-escalated', 'Operators decide escalated cases only.');
    const state = await this.cases.decide(caseId, { decision });
    await this.audit(this.db.manager, operatorId, 'case.decide', 'case', caseId, reason, {
      decision,
      from: before.status,
      to: state.status,
    });
    return this.getCase(caseId);
  }

  /**
   * Suspends a seller: their listings leave every buyer view (`LIVE_LISTING_SQL` requires an
   * ACTIVE seller), baskets holding them cannot check out, and the open checkouts already
   * holding their units are closed, so those payments are refused.
   */
  async suspendSeller(operatorId: string, sellerId: string, reason: string): Promise<SellerStandingView> {
    const standing = await this.setStanding(operatorId, sellerId, 'SUSPENDED', reason);
    // After the suspension commits, so a checkout priced meanwhile already sees the seller suspended.
    await closeSellerCheckouts(this.db, sellerId);
    return standing;
  }

  reinstateSeller(operatorId: string, sellerId: string, reason: string): Promise<SellerStandingView> {
    return this.setStanding(operatorId, sellerId, 'ACTIVE', reason);
  }

  async sellerStanding(sellerId: string): Promise<SellerStandingView> {
    const [row]: SellerStandingView[] = await this.db.query(`SELECT ${STANDING} FROM seller_accounts WHERE user_id = $1`, [sellerId]);
    if (!row) throw notFound('Seller');
    return row;
  }

  /** The audit log, newest first. */
  async auditLog(q: AuditQuery): Promise<Page<AuditEntry>> {
    const where = new SqlFilter();
    if (q.operatorId) where.add('operator_id = $?', q.operatorId);
    if (q.subjectType) where.add('subject_type = $?', q.subjectType);
    if (q.subjectId) where.add('subject_id = $?', q.subjectId);
    // The count binds the filters' values only: taken before the page's LIMIT and OFFSET are bound.
    const counted: Promise<[{ total: number }]> = this.db.query(
      `SELECT count(*)::int AS total FROM operator_audit_log WHERE ${where.sql()}`,
      [...where.params],
    );
    const entries: Promise<AuditEntry[]> = this.db.query(
      `SELECT id, operator_id AS "operatorId", action, subject_type AS "subjectType", subject_id AS "subjectId", reason, detail,
              created_at AS "createdAt"
         FROM operator_audit_log WHERE ${where.sql()}
        ORDER BY created_at DESC, id DESC LIMIT ${where.param(q.size)} OFFSET ${where.param((q.page - 1) * q.size)}`,
      where.params,
    );
    const [items, [{ total }]] = await Promise.all([entries, counted]);
    return pageOf(items, total, q);
  }

  private async setStanding(
    operatorId: string,
    sellerId: string,
    status: 'ACTIVE' | 'SUSPENDED',
    reason: string,
  ): Promise<SellerStandingView> {
    return this.db.transaction(async (tx) => {
      const [[row]]: [SellerStandingView[]] = await tx.query(
        `UPDATE seller_accounts SET status = $2, status_reason = $3, status_changed_at = now(), status_changed_by = $4, updated_at = now()
          WHERE user_id = $1 AND status <> $2 RETURNING ${STANDING}`,
        [sellerId, status, reason, operatorId],
      );
      if (!row) {
        await this.sellerStanding(sellerId); // 404 when there is no such seller
        throw conflict(status === 'SUSPENDED' ? 'seller-suspended' : 'seller-active', `The seller is already ${status.toLowerCase()}.`);
      }
      await this.audit(tx, operatorId, status === 'SUSPENDED' ? 'seller.suspend' : 'seller.reinstate', 'seller', sellerId, reason, {});
      return row;
    });
  }

  private audit(
    db: EntityManager,
    operatorId: string,
    action: string,
    subjectType: AuditSubject,
    subjectId: string,
    reason: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    return recordOperatorAction(db, { operatorId, reason }, { action, subjectType, subjectId, detail });
  }

  private async withParties(
    rows: Array<{ id: string; sellerId: string; buyerId: string; escalatedAt: Date | null }>,
  ): Promise<OperatorCaseView[]> {
    const views = await loadCaseViews(
      this.db,
      rows.map((r) => r.id),
      'OPERATOR',
      this.periods,
    );
    const parties = new Map(rows.map((r) => [r.id, r]));
    return views.map((v) => {
      const { sellerId, buyerId, escalatedAt } = parties.get(v.id)!;
      return { ...v, sellerId, buyerId, escalatedAt };
    });
  }
}

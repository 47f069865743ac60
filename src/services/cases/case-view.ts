import type { DataSource, EntityManager } from 'typeorm';
import {
  ESCALATABLE,
  nextCaseActions,
  nextOperatorDecisions,
  type CaseReason,
  type CaseStatus,
  type CaseViewAction,
  type OutcomeStatus,
  type OutcomeType,
  type Party,
} from '../../domain/cases/machine';
import { deadline, type NextAction, type Periods } from '../../domain/deadlines';
import { caseNextActions } from '../../domain/cases/case-next-actions';
import { addressView, type AddressView, type DeliveryAddress } from '../basket/pricing';

export interface OutcomeView {
  id: string;
  caseId: string;
  type: OutcomeType;
  party: Party;
  status: OutcomeStatus;
  amount: number;
  comment: string;
  deliveryAddress: AddressView | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CaseAttachmentView {
  id: string;
  imageId: string;
  url: string;
  party: Party;
  createdAt: Date;
}

export interface CaseView {
  id: string;
  workflowId: string;
  orderId: string;
  purchaseId: string;
  reason: CaseReason;
  status: CaseStatus;
  comment: string;
  createdAt: Date;
  updatedAt: Date;
  outcomes: OutcomeView[];
  attachments: CaseAttachmentView[];
  /** What the viewer may do now, from the case machine (an operator: the decisions). */
  actions: CaseViewAction[];
  /** Whose move the case waits for and by when, the same for every viewer (docs/cases.md "Next actions"). */
  nextActions: NextAction[];
  deadlines: {
    /** When the running OPEN or REMEDIATION period escalates automatically; null when no clock runs. */
    escalatesAt: Date | null;
  };
}

/** Who reads a case: a party (the buyer's view is redacted) or an operator (nothing hidden). */
export type CaseViewer = Party | 'OPERATOR';

/**
 * Hides what a viewer may not see yet: a seller's return address on a seller outcome stays
 * hidden from the buyer (null) until the buyer accepts that outcome.
 */
export function redactOutcome(o: OutcomeView, viewer: CaseViewer): OutcomeView {
  const hidden = viewer === 'BUYER' && o.party === 'SELLER' && o.status !== 'ACCEPTED';
  return hidden ? { ...o, deliveryAddress: null } : o;
}

const group = <T extends { caseId: string }>(rows: T[]) => {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(row.caseId, [...(map.get(row.caseId) ?? []), row]);
  return map;
};

/**
 * Case views for the given ids, in that order, as `viewer` may see them, in three queries.
 * Callers have already filtered the ids by ownership.
 */
export async function loadCaseViews(
  db: DataSource | EntityManager,
  caseIds: string[],
  viewer: CaseViewer,
  periods: Pick<Periods, 'autoEscalateSeconds' | 'decisionSeconds'>,
): Promise<CaseView[]> {
  if (caseIds.length === 0) return [];
  const [cases, outcomes, attachments] = await Promise.all([
    db.query(
      `SELECT id, workflow_id AS "workflowId", order_id AS "orderId", purchase_id AS "purchaseId", reason, status, comment,
              created_at AS "createdAt", updated_at AS "updatedAt", period_started_at AS "periodStartedAt", escalated_at AS "escalatedAt"
         FROM cases WHERE id = ANY($1)`,
      [caseIds],
    ) as Promise<
      Array<
        Omit<CaseView, 'outcomes' | 'attachments' | 'actions' | 'nextActions' | 'deadlines'> & {
          periodStartedAt: Date;
          escalatedAt: Date | null;
        }
      >
    >,
    db.query(
      `SELECT id, case_id AS "caseId", type, party, status, amount, comment, delivery_address AS "deliveryAddress",
              created_at AS "createdAt", updated_at AS "updatedAt"
         FROM case_outcomes WHERE case_id = ANY($1) ORDER BY created_at, id`,
      [caseIds],
    ) as Promise<Array<Omit<OutcomeView, 'deliveryAddress'> & { deliveryAddress: DeliveryAddress | null }>>,
    db.query(
      `SELECT id, case_id AS "caseId", image_id AS "imageId", url, party, created_at AS "createdAt"
         FROM case_attachments WHERE case_id = ANY($1) ORDER BY created_at, id`,
      [caseIds],
    ) as Promise<Array<CaseAttachmentView & { caseId: string }>>,
  ]);
  const outcomesOf = group(outcomes);
  const attachmentsOf = group(attachments);
  const byId = new Map(cases.map((c) => [c.id, c]));
  return caseIds
    .map((id) => byId.get(id))
    .filter((c) => c !== undefined)
    .map(({ periodStartedAt, escalatedAt, ...c }) => {
      const outcomes = outcomesOf.get(c.id) ?? [];
      const state = { status: c.status, outcomes };
      const escalatesAt = ESCALATABLE.includes(c.status) ? deadline(periodStartedAt, periods.autoEscalateSeconds) : null;
      return {
        ...c,
        outcomes: outcomes.map((o) =>
          redactOutcome({ ...o, deliveryAddress: o.deliveryAddress && addressView(o.deliveryAddress) }, viewer),
        ),
        attachments: (attachmentsOf.get(c.id) ?? []).map(({ caseId: _caseId, ...a }) => a),
        actions: viewer === 'OPERATOR' ? nextOperatorDecisions(state) : nextCaseActions(state, viewer),
        nextActions: caseNextActions({ ...state, escalatesAt, escalatedAt }, periods),
        deadlines: { escalatesAt },
      };
    });
}

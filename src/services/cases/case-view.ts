import type { DataSource, EntityManager } from 'typeorm';
import type { CaseStatus, OutcomeStatus, OutcomeType, Party } from '../../domain/cases/machine';

export interface OutcomeView {
  id: string;
  caseId: string;
  type: OutcomeType;
  party: Party;
  status: OutcomeStatus;
  amount: number;
  comment: string;
  deliveryAddress: Record<string, string> | null;
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
  reason: string;
  status: CaseStatus;
  comment: string;
  createdAt: Date;
  updatedAt: Date;
  outcomes: OutcomeView[];
  attachments: CaseAttachmentView[];
}

/**
 * Hides what a viewer may not see yet: a seller's return address on a seller outcome stays
 * hidden from the buyer (null) until the buyer accepts that outcome.
 */
export function redactOutcome(o: OutcomeView, viewer: Party): OutcomeView {
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
  viewer: Party,
): Promise<CaseView[]> {
  if (caseIds.length === 0) return [];
  const [cases, outcomes, attachments] = await Promise.all([
    db.query(
      `SELECT id, workflow_id AS "workflowId", order_id AS "orderId", purchase_id AS "purchaseId", reason, status, comment,
              created_at AS "createdAt", updated_at AS "updatedAt"
         FROM cases WHERE id = ANY($1)`,
      [caseIds],
    ) as Promise<Array<Omit<CaseView, 'outcomes' | 'attachments'>>>,
    db.query(
      `SELECT id, case_id AS "caseId", type, party, status, amount, comment, delivery_address AS "deliveryAddress",
              created_at AS "createdAt", updated_at AS "updatedAt"
         FROM case_outcomes WHERE case_id = ANY($1) ORDER BY created_at, id`,
      [caseIds],
    ) as Promise<OutcomeView[]>,
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
    .map((c) => ({
      ...c,
      outcomes: (outcomesOf.get(c.id) ?? []).map((o) => redactOutcome(o, viewer)),
      attachments: (attachmentsOf.get(c.id) ?? []).map(({ caseId: _caseId, ...a }) => a),
    }));
}

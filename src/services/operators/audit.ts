import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';

/** Who acts and why: the operator's user id and the reason they gave (kept in the audit log). */
/** What an operator action is about, as `operator_audit_log.subject_type`. */
export const AUDIT_SUBJECTS = ['case', 'seller', 'oauth-app'] as const;
export type AuditSubject = (typeof AUDIT_SUBJECTS)[number];

export interface OperatorAction {
  operatorId: string;
  reason: string;
}

/**
 * Appends one operator action to `operator_audit_log` (append-only). Callers pass the
 * transaction that makes the change, so an action is never recorded without its effect or the
 * reverse. `detail` must hold no secret: the log is read over HTTP.
 */
export async function recordOperatorAction(
  db: EntityManager,
  by: OperatorAction,
  entry: { action: string; subjectType: AuditSubject; subjectId: string; detail?: Record<string, unknown> },
): Promise<void> {
  await db.query(
    `INSERT INTO operator_audit_log (id, operator_id, action, subject_type, subject_id, reason, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [newId(), by.operatorId, entry.action, entry.subjectType, entry.subjectId, by.reason, JSON.stringify(entry.detail ?? {})],
  );
}

import type { DataSource } from 'typeorm';
import type { CaseState, Party, PartyAction } from '../../domain/cases/machine';
import { Upload } from '../../db/entities';
import type { Periods } from '../../domain/deadlines';
import { conflict, invalid, notFound } from '../errors';
import { pageOf, type Page, type PageRequest } from '../paging';
import { SqlFilter } from '../sql-filter';
import type { Uploads } from '../uploads';
import { plainText } from './plain-text';
import type { WorkflowStart } from '../workflow-starts';
import { openedCaseOf, resolveOutcome, type OpenedCase, type OutcomeRequest } from './case-opening';
import { loadCaseViews, type CaseAttachmentView, type CaseView } from './case-view';

/** Sends a party's action to the case workflow and returns its answer (see src/temporal/case-updates.ts). */
export interface CaseWorkflowActions {
  /**
   * Sends the action as an update-with-start: `opening` starts `case:{caseId}` when its start
   * still waits in the start outbox, and is ignored when the workflow runs. A workflow that has
   * finished answers 409 `case-closed`.
   */
  act(opening: WorkflowStart, action: PartyAction, options?: { updateId?: string }): Promise<CaseState>;
}

/** `case:{caseId}` as its opening starts it, built by the cases module (src/modules/cases.ts). */
export type CaseStart = (opened: OpenedCase, autoEscalateSeconds: number) => WorkflowStart;

/**
 * A party's action as the API receives it: the party is the caller's role, never the body's; a
 * proposal's address may be one of the caller's saved addresses.
 */
export type CaseActionRequest =
  | ({ action: 'propose' } & OutcomeRequest)
  | (Exclude<PartyAction, { action: 'propose' }> extends infer A ? (A extends PartyAction ? Omit<A, 'party'> : never) : never);

/** Which cases column names the party: ownership is always part of the SQL. */
const OWNER_COLUMN: Record<Party, string> = { BUYER: 'buyer_id', SELLER: 'seller_id' };
const SORT_COLUMNS = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;

/** Filters of the seller's case inbox (each optional, combined with AND). */
export interface CaseFilters {
  status?: string[];
  reason?: string[];
}

/**
 * "Sorted by deadline": cases whose escalation clock runs (OPEN, REMEDIATION) first, the
 * soonest escalation first — the period length is one setting, so the period's start orders them
 * — then the others (SETTLED, ESCALATED, CLOSED: nothing runs out) most recently changed first.
 */
const BY_DEADLINE = `(status IN ('OPEN', 'REMEDIATION')) DESC,
  CASE WHEN status IN ('OPEN', 'REMEDIATION') THEN period_started_at END ASC, updated_at DESC, id`;

/** The image id of a case attachment: `case/{caseId}/attachments/{attachmentId}` (docs/cases.md). */
export const attachmentImageId = (caseId: string, attachmentId: string) => `case/${caseId}/attachments/${attachmentId}`;
const IMAGE_ID = /^case\/([0-9a-f-]{36})\/attachments\/([0-9a-f-]{36})$/;

/**
 * Cases as buyers and sellers see and act on them. Reads come from Postgres (written by the
 * case workflow's activity); actions go to the workflow, which owns the state machine. A case
 * that is missing or not the caller's is "not found".
 */
export class Cases {
  constructor(
    private readonly db: DataSource,
    private readonly uploads: Uploads,
    private readonly workflow: CaseWorkflowActions,
    private readonly caseStart: CaseStart,
    private readonly periods: Periods,
  ) {}

  async listForBuyer(buyerId: string, q: PageRequest): Promise<CaseView[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT id FROM cases WHERE buyer_id = $1
        ORDER BY ${SORT_COLUMNS[q.sort]} ${q.direction === 'asc' ? 'ASC' : 'DESC'}, id LIMIT $2 OFFSET $3`,
      [buyerId, q.size, (q.page - 1) * q.size],
    );
    return loadCaseViews(
      this.db,
      rows.map((r) => r.id),
      'BUYER',
      this.periods,
    );
  }

  /** The seller's case inbox: paged, filtered by status and reason, sorted by deadline. */
  async listForSeller(sellerId: string, q: { page: number; size: number } & CaseFilters): Promise<Page<CaseView>> {
    const where = new SqlFilter();
    where.add('seller_id = $?', sellerId);
    if (q.status?.length) where.add('status = ANY($?)', q.status);
    if (q.reason?.length) where.add('reason = ANY($?)', q.reason);
    // The count binds the filters' values only: taken before the page's LIMIT and OFFSET are bound.
    const counted: Promise<[{ total: number }]> = this.db.query(`SELECT count(*)::int AS total FROM cases WHERE ${where.sql()}`, [
      ...where.params,
    ]);
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT id FROM cases WHERE ${where.sql()} ORDER BY ${BY_DEADLINE} LIMIT ${where.param(q.size)} OFFSET ${where.param((q.page - 1) * q.size)}`,
      where.params,
    );
    const [views, [{ total }]] = await Promise.all([
      loadCaseViews(
        this.db,
        rows.map((r) => r.id),
        'SELLER',
        this.periods,
      ),
      counted,
    ]);
    return pageOf(views, total, q);
  }

  async get(party: Party, userId: string, caseId: string): Promise<CaseView> {
    await this.owned(party, userId, caseId);
    const [view] = await loadCaseViews(this.db, [caseId], party, this.periods);
    return view!;
  }

  /**
   * Applies a party's action through the workflow, then answers the refreshed case. `updateId`
   * names the Temporal Update: an action sent again with the same id is applied once.
   */
  async act(party: Party, userId: string, caseId: string, request: CaseActionRequest, updateId?: string): Promise<CaseView> {
    const { status } = await this.owned(party, userId, caseId);
    // A closed case's workflow has finished: answer without asking Temporal.
    if (status === 'CLOSED') throw conflict('case-closed', 'The case is closed.');
    const action: PartyAction =
      request.action === 'propose'
        ? { ...(await resolveOutcome(this.db, userId, request)), action: 'propose', party, comment: plainText(request.comment) }
        : { ...request, party };
    // A case opened moments ago may have its start still in the outbox: the action starts the
    // workflow with the input the outbox start carries, and that start then finds it running.
    const opening = this.caseStart(await openedCaseOf(this.db, caseId), this.periods.autoEscalateSeconds);
    await this.workflow.act(opening, action, { updateId });
    return this.get(party, userId, caseId);
  }

  /** Step 1 of an attachment: an upload for the caller, named by the case's image id shape. */
  async createAttachment(
    party: Party,
    userId: string,
    caseId: string,
  ): Promise<{ id: string; imageId: string; uploadUrl: string; maxBytes: number }> {
    await this.owned(party, userId, caseId);
    const upload = await this.uploads.create(userId);
    return { id: upload.id, imageId: attachmentImageId(caseId, upload.id), uploadUrl: upload.uploadUrl, maxBytes: upload.maxBytes };
  }

  /**
   * Step 2: attaches a finished upload to the case. 404 when the case is not the caller's; 400
   * when the image id does not have this case's shape, or its upload is unknown, not the
   * caller's or still a draft. Finalizing the same image twice answers the same attachment.
   */
  async finalizeAttachment(party: Party, userId: string, caseId: string, imageId: string): Promise<CaseAttachmentView> {
    await this.owned(party, userId, caseId);
    const match = IMAGE_ID.exec(imageId);
    if (!match || match[1] !== caseId) {
      throw invalid('invalid-image-id', `The image id must be ${attachmentImageId(caseId, '{attachmentId}')}.`, [
        { in: 'body', field: 'id', message: 'Not an attachment id of this case.' },
      ]);
    }
    const uploadId = match[2]!;
    const upload = await this.db.getRepository(Upload).findOneBy({ id: uploadId, ownerId: userId, status: 'READY' });
    if (!upload) throw invalid('upload-not-ready', 'The upload is unknown, not yours, or has no image bytes yet.');
    await this.db.transaction(async (tx) => {
      const [added] = await tx.query(
        `INSERT INTO case_attachments (id, case_id, party, image_id, url) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [uploadId, caseId, party, imageId, this.uploads.imageUrl(uploadId)],
      );
      // A new attachment is a change of the case (sorting by updatedAt shows it); a repeat is not.
      if (added) await tx.query(`UPDATE cases SET updated_at = now() WHERE id = $1`, [caseId]);
    });
    const [attachment]: CaseAttachmentView[] = await this.db.query(
      `SELECT id, image_id AS "imageId", url, party, created_at AS "createdAt" FROM case_attachments WHERE id = $1 AND case_id = $2`,
      [uploadId, caseId],
    );
    if (!attachment) throw invalid('upload-not-ready', 'The upload is attached to another case.');
    return attachment;
  }

  private async owned(party: Party, userId: string, caseId: string): Promise<{ status: string }> {
    const [row]: Array<{ status: string }> = await this.db.query(`SELECT status FROM cases WHERE id = $1 AND ${OWNER_COLUMN[party]} = $2`, [
      caseId,
      userId,
    ]);
    if (!row) throw notFound('Case');
    return row;
  }
}

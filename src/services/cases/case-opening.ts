import type { DataSource, EntityManager } from 'typeorm';
import type { OutcomeProposal, OutcomeState, Party } from '../../domain/cases/machine';
import { newId } from '../../ids';
import { savedDeliveryAddress } from '../account/addresses';
import type { DeliveryAddress } from '../basket/pricing';
import { conflict } from '../errors';
import { plainText } from './plain-text';

/** A dispute as the order engine received it (items already checked against the order). */
export interface CaseRequest {
  reason: string;
  comment: string;
  items: Array<{ id: string; quantity: number }>;
  /** Outcomes the opening party proposes right away (PENDING). */
  outcomes: OutcomeRequest[];
}

/** An outcome as a party sends it: its address typed in, or one of the party's saved addresses (`addressId`). */
export type OutcomeRequest = Omit<OutcomeProposal, 'deliveryAddress'> & { deliveryAddress?: DeliveryAddress | null; addressId?: string };

/** The proposal with its address resolved; another user's saved address is not found. */
export async function resolveOutcome(
  db: DataSource | EntityManager,
  userId: string,
  { addressId, deliveryAddress, ...o }: OutcomeRequest,
): Promise<OutcomeProposal> {
  return { ...o, deliveryAddress: addressId ? await savedDeliveryAddress(db, userId, addressId) : (deliveryAddress ?? null) };
}

/** What `case:{caseId}` is started with: its search attributes and initial outcomes. */
export interface OpenedCase {
  caseId: string;
  orderId: string;
  sellerId: string;
  reason: string;
  outcomes: OutcomeState[];
}

/**
 * The case as its opening recorded it: what `case:{caseId}` is started with when a party's first
 * action comes before the start outbox has started it (`Cases.act` starts it with the action).
 * Until the workflow runs, nothing but the opening writes a case's rows, so they are what
 * `openCase` returned; once it runs, Temporal ignores a start of the same id.
 */
export async function openedCaseOf(db: DataSource, caseId: string): Promise<OpenedCase> {
  const [opened]: OpenedCase[] = await db.query(
    `SELECT c.id AS "caseId", c.order_id AS "orderId", c.seller_id AS "sellerId", c.reason,
            COALESCE(json_agg(json_build_object('id', o.id, 'type', o.type, 'party', o.party, 'status', o.status)
                              ORDER BY o.created_at, o.id) FILTER (WHERE o.id IS NOT NULL), '[]') AS outcomes
       FROM cases c LEFT JOIN case_outcomes o ON o.case_id = c.id
      WHERE c.id = $1 GROUP BY c.id`,
    [caseId],
  );
  return opened!;
}

/**
 * The one place a case is created (seller- and buyer-side disputes both come here through the
 * order engine, with the order row locked): case OPEN, items linked, initial outcomes stored.
 * An order item already in an unclosed case cannot be disputed again (409).
 */
export async function openCase(
  tx: EntityManager,
  order: { id: string; purchase_id: string; buyer_id: string; seller_id: string },
  party: Party,
  request: CaseRequest,
): Promise<OpenedCase> {
  const busy: Array<{ order_item_id: string }> = await tx.query(
    `SELECT ci.order_item_id FROM case_items ci JOIN cases c ON c.id = ci.case_id
      WHERE ci.order_item_id = ANY($1) AND c.status <> 'CLOSED'`,
    [request.items.map((i) => i.id)],
  );
  if (busy.length > 0) {
    throw conflict('item-already-disputed', `Order items ${busy.map((b) => b.order_item_id).join(', ')} are already in an open case.`);
  }
  const caseId = newId();
  await tx.query(
    `INSERT INTO cases (id, order_id, purchase_id, buyer_id, seller_id, reason, comment) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [caseId, order.id, order.purchase_id, order.buyer_id, order.seller_id, request.reason, plainText(request.comment)],
  );
  for (const item of request.items) {
    await tx.query(`INSERT INTO case_items (case_id, order_item_id, quantity) VALUES ($1, $2, $3)`, [caseId, item.id, item.quantity]);
  }
  const outcomes: OutcomeState[] = [];
  for (const requested of request.outcomes) {
    const o = await resolveOutcome(tx, party === 'BUYER' ? order.buyer_id : order.seller_id, requested);
    const id = newId();
    await tx.query(
      `INSERT INTO case_outcomes (id, case_id, type, party, amount, comment, delivery_address) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, caseId, o.type, party, o.amount, plainText(o.comment), o.deliveryAddress === null ? null : JSON.stringify(o.deliveryAddress)],
    );
    outcomes.push({ id, type: o.type, party, status: 'PENDING' });
  }
  return { caseId, orderId: order.id, sellerId: order.seller_id, reason: request.reason, outcomes };
}

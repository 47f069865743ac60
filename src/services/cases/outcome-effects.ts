import type { EntityManager } from 'typeorm';
import type { OutcomeState } from '../../domain/cases/machine';
import { restoreStock, takeStock } from '../listings/stock';
import { recordReplacement, refundOrder } from '../money/refunds';

/** A case change as far as its effects go: what happened and the outcomes after it. */
export interface OutcomeChange {
  caseId: string;
  orderId: string;
  kind: string;
  outcomes: OutcomeState[];
}

interface CaseLine {
  order_item_id: string;
  /** The order item was cancelled: its units went back to their listing then. */
  cancelled: boolean;
  listing_id: string;
  price: number;
  quantity: number;
}

/**
 * The one place an accepted outcome moves money or stock (docs/money.md), in the transaction of
 * the case change that triggers it:
 * - REFUND, when accepted: its amount is refunded;
 * - REPLACEMENT, when accepted: the disputed units leave their listings' stock (where still on
 *   sale) and the order shows a REPLACEMENT adjustment; no money moves;
 * - RETURN, when the seller resolves it (the goods came back): the disputed units go back to
 *   their listings (unless a cancellation restocked them already) and their value is refunded,
 *   through the same refund as REFUND, capped by what is left of those items.
 * Each is once per outcome: the outcome's adjustment is unique.
 */
export async function applyOutcomeEffects(tx: EntityManager, change: OutcomeChange): Promise<void> {
  const accepted = change.outcomes.find((o) => o.status === 'ACCEPTED');
  if (!accepted) return;
  const source = { orderId: change.orderId, caseId: change.caseId, outcomeId: accepted.id };
  if (change.kind === 'accept' && accepted.type === 'REFUND') {
    const [outcome]: Array<{ amount: number }> = await tx.query(`SELECT amount FROM case_outcomes WHERE id = $1`, [accepted.id]);
    // A case about some items refunds those items (and the delivery charge); one about none, the order.
    const lineIds = (await caseLines(tx, change.caseId)).map((l) => l.order_item_id);
    await refundOrder(tx, { ...source, lineIds }, outcome!.amount);
  } else if (change.kind === 'accept' && accepted.type === 'REPLACEMENT') {
    if (await adjusted(tx, accepted.id)) return;
    const lines = await caseLines(tx, change.caseId);
    for (const line of lines) await takeStock(tx, line.listing_id, line.quantity);
    const [order]: Array<{ ordered: number }> = await tx.query(
      `SELECT COALESCE(sum(quantity), 0)::int AS ordered FROM order_items WHERE order_id = $1`,
      [change.orderId],
    );
    await recordReplacement(tx, source, units(lines) >= order!.ordered ? 'FULL' : 'PARTIAL');
  } else if (change.kind === 'resolve' && accepted.type === 'RETURN') {
    if (await adjusted(tx, accepted.id)) return;
    const lines = await caseLines(tx, change.caseId);
    // Units of a cancelled item were restocked by the cancellation; restocking them again would sell a phantom unit.
    for (const line of lines) if (!line.cancelled) await restoreStock(tx, line.listing_id, line.quantity);
    await refundOrder(
      tx,
      { ...source, lineIds: lines.map((l) => l.order_item_id), withDelivery: false },
      lines.reduce((sum, l) => sum + l.price * l.quantity, 0),
    );
  }
}

const units = (lines: CaseLine[]) => lines.reduce((sum, l) => sum + l.quantity, 0);

async function adjusted(tx: EntityManager, outcomeId: string): Promise<boolean> {
  return (await tx.query(`SELECT 1 FROM adjustments WHERE outcome_id = $1`, [outcomeId])).length > 0;
}

/** The disputed units of the case and their unit prices, by listing (the lock order of stock changes). */
async function caseLines(tx: EntityManager, caseId: string): Promise<CaseLine[]> {
  return tx.query(
    `SELECT oi.id AS order_item_id, oi.status = 'CANCELLED' AS cancelled, oi.listing_id, oi.price::int AS price, ci.quantity
       FROM case_items ci JOIN order_items oi ON oi.id = ci.order_item_id
      WHERE ci.case_id = $1 ORDER BY oi.listing_id, oi.id`,
    [caseId],
  );
}

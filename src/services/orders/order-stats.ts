import type { StatsSource } from '../sellers/stats-source';

/**
 * Seller stats `orders` (docs/sellers-operators.md):
 * - `total`: every order of the seller;
 * - `open`: not finished — not yet received, or with a case not CLOSED;
 * - `waiting`: waiting for the seller — items still to ship (ACCEPTED), or a case not CLOSED
 *   in which the seller must act: a SETTLED return to confirm (`resolve`), or a buyer's
 *   outcome still PENDING (to accept or reject).
 * Every write that can move an order between these sets (an order's status, a case's status,
 * an outcome's status) bumps the stats version at its commit: triggers, migration 1733640000000.
 */
export const orderStatsSource: StatsSource = async (db, sellerId) => {
  const [row] = await db.query(
    `WITH unclosed AS (
       SELECT c.order_id,
              bool_or(c.status = 'SETTLED' OR EXISTS (
                SELECT 1 FROM case_outcomes co WHERE co.case_id = c.id AND co.party = 'BUYER' AND co.status = 'PENDING'
              )) AS seller_turn
         FROM cases c
        WHERE c.seller_id = $1 AND c.status <> 'CLOSED'
        GROUP BY c.order_id
     )
     SELECT count(*)::int AS total,
            count(*) FILTER (WHERE o.status IN ('ACCEPTED', 'SHIPPED') OR u.order_id IS NOT NULL)::int AS open,
            count(*) FILTER (WHERE o.status = 'ACCEPTED' OR coalesce(u.seller_turn, false))::int AS waiting
       FROM orders o LEFT JOIN unclosed u ON u.order_id = o.id
      WHERE o.seller_id = $1`,
    [sellerId],
  );
  return { orders: { total: row.total, open: row.open, waiting: row.waiting } };
};

import type { StatsSource } from '../sellers/stats-source';

/** Seller stats `cases.open`: the seller's cases not yet CLOSED (the cases table is counted: its writes bump the stats version). */
export const caseStatsSource: StatsSource = async (db, sellerId) => {
  const [row] = await db.query(`SELECT count(*)::int AS open FROM cases WHERE seller_id = $1 AND status <> 'CLOSED'`, [sellerId]);
  return { cases: { open: row.open } };
};

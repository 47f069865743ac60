import type { StatsSource } from '../sellers/stats-source';

/** Seller stats `cases.open`: the seller's cases not yet CLOSED (kept fresh by `touchSellerStats` on opening and every case change). */
export const caseStatsSource: StatsSource = async (db, sellerId) => {
  const [row] = await db.query(`SELECT count(*)::int AS open FROM cases WHERE seller_id = $1 AND status <> 'CLOSED'`, [sellerId]);
  return { cases: { open: row.open } };
};

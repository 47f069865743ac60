/**
 * What buyers may see and buy: the one definition of a "live" listing, shared by listing
 * search, item price/availability aggregates, basket and checkout. SQL fragment over the
 * aliases `l` (listings) and `sa` (seller_accounts joined on `sa.user_id = l.seller_id`).
 * The database function `item_market_refresh` (migrations 1733443700000, 1733506000000) repeats it in SQL to
 * keep `item_market`; test/services/item-market.test.ts checks that the two agree.
 */
export const LIVE_LISTING_SQL = `l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved
  AND sa.status = 'ACTIVE' AND NOT sa.vacation`;

export const available = (listing: { quantity: number; reserved: number }) => listing.quantity - listing.reserved;
export const locked = (listing: { reserved: number }) => listing.reserved > 0;

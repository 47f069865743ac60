import { CONDITIONS } from '../listings/listing-input';
import { LIVE_LISTING_SQL } from '../listings/visibility';

/**
 * Which live listings fit a wants line: the one definition, shared by the availability a list
 * shows and the optimizer's candidates (docs/wants.md, "What fits a line").
 *
 * A line names one item, or a card by name within a game (every printing: the items of that
 * game whose name matches case-blind, through `catalog_items (game_urn, lower(name))`). Its
 * listings are then found through `listings (item_urn)`: the cost follows the listings of the
 * items the line names, never the size of the market. Conditions are ordered best first
 * (`CONDITIONS`); a listing fits `minCondition` when it is that good or better. `variants` must
 * all be among the listing's (jsonb containment); `languages`, when given, must include the
 * listing's (`listingMeetsSql`, which price alerts share).
 *
 * `lines` is an SQL relation with the columns of `wants_lines` (aliased `wl`); the answer has
 * one row per fitting (line, listing) with `line_id, listing_id, seller_id, price, available,
 * within_max_price`. A listing over the line's `maxPrice` is returned, marked: a line it alone
 * could fill is then reported "over maxPrice", not "no stock".
 */
export function fittingListingsSql(lines: string): string {
  return `
    SELECT wl.id AS line_id, l.id AS listing_id, l.seller_id, l.price,
           (l.quantity - l.reserved) AS available,
           (wl.max_price IS NULL OR l.price <= wl.max_price) AS within_max_price
      FROM ${lines} wl
      JOIN LATERAL (
        SELECT l.id, l.seller_id, l.price, l.quantity, l.reserved
          FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
         WHERE l.item_urn = ANY(${lineItemsSql('wl')})
           AND ${LIVE_LISTING_SQL}
           AND ${listingMeetsSql('wl', 'l')}
      ) l ON true`;
}

/**
 * Whether the listing aliased `listing` meets the constraints of the row aliased `wanted` (a
 * wants line, a price alert: any relation with `min_condition`, `languages` and `variants` as
 * `wants_lines` has them): that good a condition or better, one of the languages, every variant.
 * The one statement of these rules, for what fits a line and for which alerts a listing fires.
 */
export function listingMeetsSql(wanted: string, listing: string): string {
  return `(${wanted}.min_condition IS NULL
            OR array_position(${CONDITION_ORDER}, ${listing}.condition) <= array_position(${CONDITION_ORDER}, ${wanted}.min_condition))
       AND (${wanted}.languages IS NULL OR ${listing}.language = ANY(${wanted}.languages))
       AND (${wanted}.variants IS NULL OR ${listing}.variants @> ${wanted}.variants)`;
}

/** The items a line (alias `alias`) names: its one item, or every printing of its card in its game. */
export function lineItemsSql(alias: string): string {
  return `(CASE WHEN ${alias}.item_urn IS NOT NULL THEN ARRAY[${alias}.item_urn]
            ELSE ARRAY(SELECT ci.urn FROM catalog_items ci
                        WHERE ci.game_urn = ${alias}.game_urn AND lower(ci.name) = lower(${alias}.card_name)) END)`;
}

/** Best first, as listings state them. */
const CONDITION_ORDER = `ARRAY[${CONDITIONS.map((c) => `'${c}'`).join(', ')}]::text[]`;

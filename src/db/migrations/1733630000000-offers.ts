import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Offers (docs/offers.md): a listing's offer settings, the offers themselves, and checkout
 * sessions that pay an accepted offer.
 *
 * A listing takes offers when `offers_enabled`; its thresholds are pence per unit. An offer is
 * open while PENDING, COUNTERED or ACCEPTED (accepted, not yet paid): one open offer per buyer
 * and listing, held by a unique index under races. `history` is the negotiation as the Offer
 * shows it. An accepted offer's stock is held in `listing_holds` like a checkout's (its
 * `checkout_id` is the offer's id until the buyer opens the offer's checkout, then that
 * session's), so every stock path sees it. An offer's checkout session has no basket.
 */
export class Offers1733630000000 implements MigrationInterface {
  name = 'Offers1733630000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE listings
        ADD COLUMN offers_enabled boolean NOT NULL DEFAULT false,
        ADD COLUMN offer_auto_accept_at integer CHECK (offer_auto_accept_at > 0),
        ADD COLUMN offer_auto_decline_below integer CHECK (offer_auto_decline_below > 0),
        ADD CONSTRAINT listings_offer_thresholds_ordered CHECK (offer_auto_decline_below <= offer_auto_accept_at)`);
    await q.query(`
      CREATE TABLE offers (
        id uuid PRIMARY KEY,
        listing_id uuid NOT NULL REFERENCES listings(id),
        buyer_id uuid NOT NULL REFERENCES users(id),
        seller_id uuid NOT NULL REFERENCES users(id),
        quantity integer NOT NULL CHECK (quantity > 0),
        unit_price integer NOT NULL CHECK (unit_price > 0),
        status text NOT NULL
          CHECK (status IN ('PENDING', 'COUNTERED', 'ACCEPTED', 'DECLINED', 'WITHDRAWN', 'EXPIRED', 'PAID', 'LAPSED')),
        turn text CHECK (turn IN ('BUYER', 'SELLER')),
        message text,
        history jsonb NOT NULL DEFAULT '[]',
        expires_at timestamptz,
        pay_by timestamptz,
        checkout_id uuid,
        purchase_id uuid,
        ended_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT offers_two_people CHECK (buyer_id <> seller_id)
      )`);
    await q.query(`
      CREATE UNIQUE INDEX offers_one_open_per_buyer_listing ON offers (listing_id, buyer_id)
        WHERE status IN ('PENDING', 'COUNTERED', 'ACCEPTED')`);
    await q.query(`CREATE INDEX offers_buyer_idx ON offers (buyer_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX offers_seller_idx ON offers (seller_id, created_at DESC, id)`);
    await q.query(`CREATE INDEX offers_listing_buyer_created_idx ON offers (listing_id, buyer_id, created_at)`);
    await q.query(`ALTER TABLE checkout_sessions ALTER COLUMN basket_id DROP NOT NULL, ADD COLUMN offer_id uuid REFERENCES offers(id)`);
    await q.query(`CREATE INDEX checkout_sessions_offer_idx ON checkout_sessions (offer_id) WHERE offer_id IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM checkout_sessions WHERE offer_id IS NOT NULL`);
    await q.query(`ALTER TABLE checkout_sessions DROP COLUMN offer_id, ALTER COLUMN basket_id SET NOT NULL`);
    await q.query(`DROP TABLE offers`);
    await q.query(`
      ALTER TABLE listings DROP CONSTRAINT listings_offer_thresholds_ordered, DROP COLUMN offers_enabled,
        DROP COLUMN offer_auto_accept_at, DROP COLUMN offer_auto_decline_below`);
  }
}

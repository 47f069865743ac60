import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Baskets, checkout sessions, purchases and seller orders (with items, shipments and
 * invoices), plus the minimal cases tables the dispute action needs (1733184000000-cases
 * extends them). Money is integer pence; time is timestamptz. See docs/checkout-orders.md.
 */
export class CheckoutOrders1733011200000 implements MigrationInterface {
  name = 'CheckoutOrders1733011200000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE baskets (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'ORDERED')),
        delivery_address jsonb,
        delivery_choices jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One open basket per user: concurrent GET /basket calls converge on the same row.
    await q.query(`CREATE UNIQUE INDEX baskets_one_open_per_user ON baskets (user_id) WHERE status = 'OPEN'`);
    await q.query(`
      CREATE TABLE basket_lines (
        basket_id uuid NOT NULL REFERENCES baskets(id) ON DELETE CASCADE,
        listing_id uuid NOT NULL REFERENCES listings(id),
        quantity integer NOT NULL CHECK (quantity > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (basket_id, listing_id)
      )`);

    await q.query(`
      CREATE TABLE checkout_sessions (
        id uuid PRIMARY KEY,
        basket_id uuid NOT NULL REFERENCES baskets(id),
        buyer_id uuid NOT NULL REFERENCES users(id),
        status text NOT NULL CHECK (status IN ('OPEN', 'PAID', 'FAILED', 'EXPIRED')),
        success_url text NOT NULL,
        lines jsonb NOT NULL,
        sellers jsonb NOT NULL,
        subtotal integer NOT NULL CHECK (subtotal >= 0),
        delivery integer NOT NULL CHECK (delivery >= 0),
        fee integer NOT NULL CHECK (fee >= 0),
        total integer NOT NULL CHECK (total >= 0),
        delivery_address jsonb NOT NULL,
        expires_at timestamptz NOT NULL,
        purchase_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX checkout_sessions_basket_open_idx ON checkout_sessions (basket_id) WHERE status = 'OPEN'`);

    await q.query(`
      CREATE TABLE purchases (
        id uuid PRIMARY KEY,
        buyer_id uuid NOT NULL REFERENCES users(id),
        checkout_id uuid NOT NULL UNIQUE REFERENCES checkout_sessions(id),
        status text NOT NULL CHECK (status IN ('PAID', 'COMPLETED')),
        subtotal integer NOT NULL,
        delivery integer NOT NULL,
        fee integer NOT NULL,
        total integer NOT NULL,
        delivery_address jsonb NOT NULL,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX purchases_buyer_idx ON purchases (buyer_id, created_at DESC)`);

    await q.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        purchase_id uuid NOT NULL REFERENCES purchases(id),
        seller_id uuid NOT NULL REFERENCES users(id),
        buyer_id uuid NOT NULL REFERENCES users(id),
        status text NOT NULL CHECK (status IN ('ACCEPTED', 'SHIPPED', 'RECEIVED')),
        subtotal integer NOT NULL CHECK (subtotal >= 0),
        delivery_charge integer NOT NULL CHECK (delivery_charge >= 0),
        total integer NOT NULL CHECK (total >= 0),
        delivery_option jsonb NOT NULL,
        shipped_at timestamptz,
        received_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX orders_seller_created_idx ON orders (seller_id, created_at DESC)`);
    await q.query(`CREATE INDEX orders_seller_updated_idx ON orders (seller_id, updated_at DESC)`);
    await q.query(`CREATE INDEX orders_purchase_idx ON orders (purchase_id)`);

    await q.query(`
      CREATE TABLE shipments (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders(id),
        carrier text NOT NULL,
        tracking_number text NOT NULL,
        tracking_url text NOT NULL DEFAULT '',
        tracking_status text NOT NULL DEFAULT 'PRE_TRANSIT',
        tracking_status_detail text NOT NULL DEFAULT '',
        attachments jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX shipments_order_idx ON shipments (order_id)`);

    await q.query(`
      CREATE TABLE order_items (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders(id),
        listing_id uuid NOT NULL REFERENCES listings(id),
        urn text NOT NULL,
        price integer NOT NULL CHECK (price >= 0),
        quantity integer NOT NULL CHECK (quantity > 0),
        condition text NOT NULL,
        language text NOT NULL,
        variants jsonb NOT NULL DEFAULT '[]',
        comment text NOT NULL DEFAULT '',
        status text NOT NULL CHECK (status IN ('ACCEPTED', 'SHIPPED', 'RECEIVED')),
        shipment_id uuid REFERENCES shipments(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX order_items_order_idx ON order_items (order_id)`);

    await q.query(`
      CREATE TABLE invoices (
        id uuid PRIMARY KEY,
        purchase_id uuid NOT NULL UNIQUE REFERENCES purchases(id),
        buyer_id uuid NOT NULL REFERENCES users(id),
        number text NOT NULL UNIQUE,
        total integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX invoices_buyer_idx ON invoices (buyer_id, created_at DESC)`);
    await q.query(`CREATE SEQUENCE invoice_number_seq`);

    // Minimal cases, extended by 1733184000000-cases.
    await q.query(`
      CREATE TABLE cases (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders(id),
        purchase_id uuid NOT NULL REFERENCES purchases(id),
        buyer_id uuid NOT NULL REFERENCES users(id),
        seller_id uuid NOT NULL REFERENCES users(id),
        reason text NOT NULL CHECK (reason IN ('SNAD', 'DAMAGED', 'WRONG_ITEM', 'NOT_RECEIVED', 'OTHER', 'CHARGEBACK')),
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'REMEDIATION', 'SETTLED', 'CLOSED', 'ESCALATED')),
        comment text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX cases_order_idx ON cases (order_id)`);
    await q.query(`CREATE INDEX cases_purchase_idx ON cases (purchase_id)`);
    await q.query(`
      CREATE TABLE case_items (
        case_id uuid NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        order_item_id uuid NOT NULL REFERENCES order_items(id),
        quantity integer NOT NULL CHECK (quantity > 0),
        PRIMARY KEY (case_id, order_item_id)
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'case_items',
      'cases',
      'invoices',
      'order_items',
      'shipments',
      'orders',
      'purchases',
      'checkout_sessions',
      'basket_lines',
      'baskets',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`DROP SEQUENCE invoice_number_seq`);
  }
}

import type { DataSource } from 'typeorm';
import type { Periods } from '../../domain/deadlines';
import { notFound } from '../errors';
import type { PageRequest } from '../paging';
import { SqlFilter } from '../sql-filter';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';
import { packingSlipCsv, packingSlipPdf } from './documents';
import { loadOrderViews, type OrderView } from './order-view';

export interface SellerOrderSummary {
  id: string;
  purchaseId: string;
  status: string;
  subtotal: number;
  deliveryCharge: number;
  total: number;
  createdAt: Date;
  updatedAt: Date;
  /** Units across the order's items. */
  itemCount: number;
  shipmentCount: number;
  buyer: UserSummary | null;
}

const SORT_COLUMNS = { createdAt: 'o.created_at', updatedAt: 'o.updated_at' } as const;

/** Filters of the seller's order inbox; each is optional and they combine with AND. */
export interface SellerOrderFilters {
  status?: Array<'ACCEPTED' | 'SHIPPED' | 'RECEIVED'>;
  createdFrom?: Date;
  createdTo?: Date;
  buyerId?: string;
  /** Orders with at least one item of this catalog item. */
  urn?: string;
  /** true: only orders with a case not CLOSED; false: only orders without one. */
  hasOpenCase?: boolean;
}

/** A seller's view of their orders; every query filters by the seller inside the SQL. */
export class SellerOrders {
  constructor(
    private readonly db: DataSource,
    private readonly periods: Periods,
  ) {}

  /** One page of the seller's orders; the filters are index-backed (docs/sellers-operators.md). */
  async list(sellerId: string, q: PageRequest & SellerOrderFilters): Promise<SellerOrderSummary[]> {
    const where = new SqlFilter();
    where.add('o.seller_id = $?', sellerId);
    if (q.status?.length) where.add('o.status = ANY($?)', q.status);
    if (q.createdFrom) where.add('o.created_at >= $?', q.createdFrom);
    if (q.createdTo) where.add('o.created_at < $?', q.createdTo);
    if (q.buyerId) where.add('o.buyer_id = $?', q.buyerId);
    if (q.urn) where.add('EXISTS (SELECT 1 FROM order_items i WHERE i.urn = $? AND i.order_id = o.id)', q.urn);
    if (q.hasOpenCase !== undefined) {
      const open = `EXISTS (SELECT 1 FROM cases c WHERE c.order_id = o.id AND c.status <> 'CLOSED')`;
      where.add(q.hasOpenCase ? open : `NOT ${open}`);
    }
    const rows: Array<Omit<SellerOrderSummary, 'buyer'> & { buyerId: string }> = await this.db.query(
      `SELECT o.id, o.purchase_id AS "purchaseId", o.status, o.subtotal, o.delivery_charge AS "deliveryCharge", o.total,
              o.created_at AS "createdAt", o.updated_at AS "updatedAt", o.buyer_id AS "buyerId",
              (SELECT coalesce(sum(quantity), 0)::int FROM order_items WHERE order_id = o.id) AS "itemCount",
              (SELECT count(*)::int FROM shipments WHERE order_id = o.id) AS "shipmentCount"
         FROM orders o
        WHERE ${where.sql()}
        ORDER BY ${SORT_COLUMNS[q.sort]} ${q.direction === 'asc' ? 'ASC' : 'DESC'}, o.id
        LIMIT ${where.param(q.size)} OFFSET ${where.param((q.page - 1) * q.size)}`,
      where.params,
    );
    const buyers = await loadUserSummaries(
      this.db,
      rows.map((r) => r.buyerId),
    );
    return rows.map(({ buyerId, ...r }) => ({ ...r, buyer: buyers.get(buyerId) ?? null }));
  }

  async packingSlip(sellerId: string, orderId: string, format: 'pdf' | 'csv'): Promise<{ body: Buffer | string; contentType: string }> {
    const order = await this.get(sellerId, orderId);
    return format === 'pdf'
      ? { body: await packingSlipPdf(order), contentType: 'application/pdf' }
      : { body: packingSlipCsv(order), contentType: 'text/csv; charset=utf-8' };
  }

  async get(sellerId: string, orderId: string): Promise<OrderView> {
    const [owned] = await this.db.query(`SELECT id FROM orders WHERE id = $1 AND seller_id = $2`, [orderId, sellerId]);
    if (!owned) throw notFound('Order');
    const [view] = await loadOrderViews(this.db, [orderId], 'SELLER', this.periods);
    return view!;
  }
}

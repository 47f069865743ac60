import type { DataSource } from 'typeorm';
import type { PurchaseStatus } from '../../domain/orders/order-machine';
import { deadline, type Periods } from '../../domain/deadlines';
import { addressView, type AddressView, type DeliveryAddress } from '../basket/pricing';
import { notFound } from '../errors';
import { pageOf, type Page, type PageRequest } from '../paging';
import { SqlFilter } from '../sql-filter';
import type { CaseRequest } from '../cases/case-opening';
import type { CaseReason } from './order-engine';
import type { OrderUpdates } from './order-updates';
import { loadOrderViews, type OrderView } from './order-view';

export interface PurchaseSummary {
  id: string;
  status: PurchaseStatus;
  subtotal: number;
  delivery: number;
  fee: number;
  /** The buyer fee refunded: all of it once the purchase is CANCELLED (docs/money.md "Buyer fee"). */
  feeRefunded: number;
  total: number;
  deliveryAddress: AddressView;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type PurchaseView = PurchaseSummary & {
  /** When the review window of a COMPLETED purchase closes (missing reviews then default); null before completion. */
  deadlines: { reviewWindowClosesAt: Date | null };
  orders: OrderView[];
};

export type PurchaseAction =
  | { action: 'receive'; orderId: string }
  | { action: 'request-cancel'; orderId: string }
  | ({ action: 'dispute'; orderId: string; reason: CaseReason } & CaseRequest);

const COLUMNS = `id, status, subtotal, delivery, fee, fee_refunded AS "feeRefunded", total, delivery_address AS "deliveryAddress", completed_at AS "completedAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;
/** A purchase row: its address as stored. */
type PurchaseRow = Omit<PurchaseSummary, 'deliveryAddress'> & { deliveryAddress: DeliveryAddress };
const summaryOf = (row: PurchaseRow): PurchaseSummary => ({ ...row, deliveryAddress: addressView(row.deliveryAddress) });

const SORT_COLUMNS = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;

/** Filters of the buyer's purchases; each optional, combined with AND. */
export interface PurchaseFilters {
  status?: PurchaseStatus[];
  createdFrom?: Date;
  createdTo?: Date;
  /** Purchases with an order from this seller. */
  sellerId?: string;
  /** true: only purchases with a case not CLOSED; false: only those without. */
  hasOpenCase?: boolean;
}

/** A buyer's purchases; every query filters by the buyer inside the SQL. */
export class Purchases {
  constructor(
    private readonly db: DataSource,
    private readonly orderUpdates: OrderUpdates,
    private readonly periods: Periods,
  ) {}

  /** One page of the buyer's purchases; the filters are index-backed (docs/sellers-operators.md). */
  async list(buyerId: string, q: PageRequest & PurchaseFilters): Promise<Page<PurchaseSummary>> {
    const where = new SqlFilter();
    where.add('p.buyer_id = $?', buyerId);
    if (q.status?.length) where.add('p.status = ANY($?)', q.status);
    if (q.createdFrom) where.add('p.created_at >= $?', q.createdFrom);
    if (q.createdTo) where.add('p.created_at < $?', q.createdTo);
    if (q.sellerId) where.add('EXISTS (SELECT 1 FROM orders o WHERE o.purchase_id = p.id AND o.seller_id = $?)', q.sellerId);
    if (q.hasOpenCase !== undefined) {
      const open = `EXISTS (SELECT 1 FROM cases c WHERE c.purchase_id = p.id AND c.status <> 'CLOSED')`;
      where.add(q.hasOpenCase ? open : `NOT ${open}`);
    }
    // The count binds the filters' values only: taken before the page's LIMIT and OFFSET are bound.
    const counted = this.db.query(`SELECT count(*)::int AS total FROM purchases p WHERE ${where.sql()}`, [...where.params]);
    const rows: Promise<PurchaseRow[]> = this.db.query(
      `SELECT ${COLUMNS} FROM purchases p WHERE ${where.sql()}
        ORDER BY ${SORT_COLUMNS[q.sort]} ${q.direction === 'asc' ? 'ASC' : 'DESC'}, id
        LIMIT ${where.param(q.size)} OFFSET ${where.param((q.page - 1) * q.size)}`,
      where.params,
    );
    const [items, [{ total }]]: [PurchaseRow[], [{ total: number }]] = await Promise.all([rows, counted]);
    return pageOf(items.map(summaryOf), total, q);
  }

  async get(buyerId: string, purchaseId: string): Promise<PurchaseView> {
    const [purchase]: PurchaseRow[] = await this.db.query(`SELECT ${COLUMNS} FROM purchases WHERE id = $1 AND buyer_id = $2`, [
      purchaseId,
      buyerId,
    ]);
    if (!purchase) throw notFound('Purchase');
    const ids: Array<{ id: string }> = await this.db.query(`SELECT id FROM orders WHERE purchase_id = $1 ORDER BY created_at, id`, [
      purchaseId,
    ]);
    return {
      ...summaryOf(purchase),
      deadlines: { reviewWindowClosesAt: deadline(purchase.completedAt, this.periods.reviewWindowSeconds) },
      orders: await loadOrderViews(
        this.db,
        ids.map((r) => r.id),
        'BUYER',
        this.periods,
      ),
    };
  }

  /** Receipt, dispute or cancellation request of one order of the purchase, through the shared order update engine. */
  async act(buyerId: string, purchaseId: string, action: PurchaseAction): Promise<PurchaseView> {
    const [order] = await this.db.query(`SELECT id FROM orders WHERE id = $1 AND purchase_id = $2 AND buyer_id = $3`, [
      action.orderId,
      purchaseId,
      buyerId,
    ]);
    if (!order) throw notFound('Order of this purchase');
    const actor = { role: 'buyer' as const, userId: buyerId };
    if (action.action === 'receive' || action.action === 'request-cancel')
      await this.orderUpdates.apply(action.orderId, actor, { action: action.action });
    else {
      const { orderId: _orderId, ...dispute } = action;
      await this.orderUpdates.apply(action.orderId, actor, dispute);
    }
    return this.get(buyerId, purchaseId);
  }
}

import type { DataSource } from 'typeorm';
import type { PurchaseStatus } from '../../domain/orders/order-machine';
import type { DeliveryAddress } from '../basket/pricing';
import { notFound } from '../errors';
import type { PageRequest } from '../paging';
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
  total: number;
  deliveryAddress: DeliveryAddress;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type PurchaseView = PurchaseSummary & { orders: OrderView[] };

export type PurchaseAction =
  | { action: 'receive'; orderId: string }
  | { action: 'request-cancel'; orderId: string }
  | ({ action: 'dispute'; orderId: string; reason: CaseReason } & CaseRequest);

const COLUMNS = `id, status, subtotal, delivery, fee, total, delivery_address AS "deliveryAddress", completed_at AS "completedAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;
const SORT_COLUMNS = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;

/** A buyer's purchases; every query filters by the buyer inside the SQL. */
export class Purchases {
  constructor(
    private readonly db: DataSource,
    private readonly orderUpdates: OrderUpdates,
  ) {}

  list(buyerId: string, q: PageRequest): Promise<PurchaseSummary[]> {
    return this.db.query(
      `SELECT ${COLUMNS} FROM purchases WHERE buyer_id = $1
        ORDER BY ${SORT_COLUMNS[q.sort]} ${q.direction === 'asc' ? 'ASC' : 'DESC'}, id LIMIT $2 OFFSET $3`,
      [buyerId, q.size, (q.page - 1) * q.size],
    );
  }

  async get(buyerId: string, purchaseId: string): Promise<PurchaseView> {
    const [purchase]: PurchaseSummary[] = await this.db.query(`SELECT ${COLUMNS} FROM purchases WHERE id = $1 AND buyer_id = $2`, [
      purchaseId,
      buyerId,
    ]);
    if (!purchase) throw notFound('Purchase');
    const ids: Array<{ id: string }> = await this.db.query(`SELECT id FROM orders WHERE purchase_id = $1 ORDER BY created_at, id`, [purchaseId]);
    return { ...purchase, orders: await loadOrderViews(this.db, ids.map((r) => r.id)) };
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
    if (action.action === 'receive' || action.action === 'request-cancel') await this.orderUpdates.apply(action.orderId, actor, { action: action.action });
    else {
      const { orderId: _orderId, ...dispute } = action;
      await this.orderUpdates.apply(action.orderId, actor, dispute);
    }
    return this.get(buyerId, purchaseId);
  }
}

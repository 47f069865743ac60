import type { DataSource } from 'typeorm';
import { notFound } from '../errors';
import { pageOf, type Page, type PageRequest } from '../paging';
import { invoicePdf, type InvoiceDocument } from './documents';

export interface InvoiceSummary {
  id: string;
  number: string;
  purchaseId: string;
  total: number;
  createdAt: Date;
}

/** Buyer invoices: one per purchase, issued when the payment commits. Filtered by buyer in SQL. */
export class Invoices {
  constructor(private readonly db: DataSource) {}

  async list(buyerId: string, q: Pick<PageRequest, 'page' | 'size' | 'direction'>): Promise<Page<InvoiceSummary>> {
    const [items, [{ total }]]: [InvoiceSummary[], [{ total: number }]] = await Promise.all([
      this.db.query(
        `SELECT id, number, purchase_id AS "purchaseId", total, created_at AS "createdAt" FROM invoices WHERE buyer_id = $1
          ORDER BY created_at ${q.direction === 'asc' ? 'ASC' : 'DESC'}, id LIMIT $2 OFFSET $3`,
        [buyerId, q.size, (q.page - 1) * q.size],
      ),
      this.db.query(`SELECT count(*)::int AS total FROM invoices WHERE buyer_id = $1`, [buyerId]),
    ]);
    return pageOf(items, total, q);
  }

  async pdf(buyerId: string, invoiceId: string): Promise<Buffer> {
    const [invoice]: Array<Omit<InvoiceDocument, 'lines'>> = await this.db.query(
      `SELECT i.number, i.purchase_id AS "purchaseId", i.created_at AS "createdAt", p.delivery_address AS "deliveryAddress",
              p.subtotal, p.delivery, p.fee, p.total
         FROM invoices i JOIN purchases p ON p.id = i.purchase_id WHERE i.id = $1 AND i.buyer_id = $2`,
      [invoiceId, buyerId],
    );
    if (!invoice) throw notFound('Invoice');
    const lines: InvoiceDocument['lines'] = await this.db.query(
      `SELECT coalesce(ci.title, oi.urn) AS title, oi.quantity, oi.price
         FROM order_items oi JOIN orders o ON o.id = oi.order_id LEFT JOIN catalog_items ci ON ci.urn = oi.urn
        WHERE o.purchase_id = $1 ORDER BY o.created_at, oi.created_at, oi.id`,
      [invoice.purchaseId],
    );
    return invoicePdf({ ...invoice, lines });
  }
}

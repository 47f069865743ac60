import type PDFDocument from 'pdfkit';
import type { DeliveryAddress } from '../basket/pricing';
import type { OrderView } from './order-view';
import { formatPence } from '../../domain/money/pence';

/**
 * pdfkit is loaded on first use: about 10 MB of resident memory that only invoice and packing-slip
 * downloads need, not every API and worker process at start.
 */
async function render(write: (doc: PDFKit.PDFDocument) => void): Promise<Buffer> {
  const { default: Document }: { default: typeof PDFDocument } = await import('pdfkit');
  const doc = new Document({ size: 'A4', margin: 50 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  write(doc);
  doc.end();
  return done;
}

const addressLines = (a: DeliveryAddress) => [a.name, a.line1, a.line2, a.city, a.state, a.postal_code, a.country].filter((l) => l !== '');

/** A packing slip: where it goes, and every item to pack with its quantity. */
export function packingSlipPdf(order: OrderView): Promise<Buffer> {
  return render((doc) => {
    doc.fontSize(18).text('Packing slip');
    doc
      .fontSize(10)
      .text(`Order ${order.id}`)
      .text(`Placed ${order.createdAt.toISOString().slice(0, 10)}`)
      .moveDown();
    doc.fontSize(12).text('Deliver to');
    doc.fontSize(10);
    for (const line of addressLines(order.purchase.deliveryAddress)) doc.text(line);
    doc.moveDown().fontSize(12).text('Items');
    doc.fontSize(10);
    for (const i of order.items) {
      doc.text(`${i.quantity} x ${i.item?.title ?? i.urn} (${i.urn}), ${i.condition}, ${i.language}, ${i.status}`);
    }
  });
}

const CSV_HEADER = ['order_id', 'item_id', 'urn', 'title', 'condition', 'language', 'quantity', 'price_pence', 'status'];

/** RFC 4180 field quoting, and a leading `'` on cells a spreadsheet would run as a formula. */
function csvField(value: string | number): string {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function packingSlipCsv(order: OrderView): string {
  const rows = order.items.map((i) => [order.id, i.id, i.urn, i.item?.title ?? '', i.condition, i.language, i.quantity, i.price, i.status]);
  return [CSV_HEADER, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export interface InvoiceDocument {
  number: string;
  purchaseId: string;
  createdAt: Date;
  deliveryAddress: DeliveryAddress;
  lines: Array<{ title: string; quantity: number; price: number }>;
  subtotal: number;
  delivery: number;
  fee: number;
  total: number;
}

export function invoicePdf(invoice: InvoiceDocument): Promise<Buffer> {
  return render((doc) => {
    doc.fontSize(18).text(`Invoice ${invoice.number}`);
    doc
      .fontSize(10)
      .text(`Purchase ${invoice.purchaseId}`)
      .text(`Date ${invoice.createdAt.toISOString().slice(0, 10)}`)
      .moveDown();
    for (const line of addressLines(invoice.deliveryAddress)) doc.text(line);
    doc.moveDown();
    for (const l of invoice.lines) doc.text(`${l.quantity} x ${l.title} at ${formatPence(l.price)} = ${formatPence(l.quantity * l.price)}`);
    doc.moveDown();
    doc
      .text(`Items ${formatPence(invoice.subtotal)}`)
      .text(`Delivery ${formatPence(invoice.delivery)}`)
      .text(`Buyer fee ${formatPence(invoice.fee)}`);
    doc.fontSize(12).text(`Total ${formatPence(invoice.total)}`);
  });
}

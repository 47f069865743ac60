import PDFDocument from 'pdfkit';
import { pdfText } from '../support/pdf-text';

it('pdfText reads what pdfkit writes (the parser that packing-slip tests rely on)', async () => {
  const doc = new PDFDocument();
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => doc.on('end', r));
  doc.text('Order 123 hello');
  doc.end();
  await done;
  expect(await pdfText(Buffer.concat(chunks))).toContain('Order 123 hello');
});

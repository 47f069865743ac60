import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = `
const { PDFParse } = require('pdf-parse');
const data = require('fs').readFileSync(process.argv[1]);
new PDFParse({ data }).getText().then((r) => process.stdout.write(r.text), (e) => { console.error(e); process.exit(1); });
`;

/**
 * The text of a PDF, extracted by pdf-parse (pdf.js) in a separate Node process: pdf.js loads
 * its worker with a dynamic import, which Jest's module sandbox cannot run.
 */
export async function pdfText(pdf: Buffer): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-text-'));
  const file = path.join(dir, 'doc.pdf');
  writeFileSync(file, pdf);
  try {
    return await new Promise((resolve, reject) =>
      execFile(process.execPath, ['-e', SCRIPT, file], { cwd: path.resolve(__dirname, '../..') }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

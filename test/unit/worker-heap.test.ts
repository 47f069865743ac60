import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import WORKER_NODE_FLAGS from '../../worker/node-flags.json';

// The compiled worker runs with a capped old generation (worker/node-flags.json). The largest thing
// it holds is an import's parsed file (src/services/imports/import-runs.ts keeps it for the
// batches); the import caps (bytes and lines) bound it. This parses the largest files the default
// caps let through, under the worker's flags, and checks they fit with room for everything else.
const ROOT = path.resolve(__dirname, '../..');
const capMiB = Number(/^--max-old-space-size=(\d+)$/.exec(WORKER_NODE_FLAGS.find((f) => f.startsWith('--max-old-space-size='))!)![1]);
const { maxBytes, maxRows } = loadConfig({ DATABASE_URL: 'postgres://unused@localhost/unused' }).imports;

const PARSE = `
const { IMPORT_COLUMNS, readRecords } = require('./src/services/imports/csv-rows');
const [shape, maxBytes, maxRows] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const header = IMPORT_COLUMNS.join(',');
// Each cell distinct (no shared strings), rows as long as the byte cap allows at the line cap.
const width = Math.floor((maxBytes - header.length) / maxRows) - 1;
const cell = shape === 'distinct cells' ? Math.max(1, Math.floor((width - IMPORT_COLUMNS.length + 1) / IMPORT_COLUMNS.length)) : 0;
const row = (i) => IMPORT_COLUMNS.map((_, c) => cell ? String(i * 16 + c).padStart(cell, 'x').slice(-cell) : '').join(',');
const lines = [header];
for (let i = 0; i < maxRows; i += 1) lines.push(row(i));
const csv = lines.join('\\n');
if (Buffer.byteLength(csv) > maxBytes) throw new Error('the file is over the byte cap');
lines.length = 0;
global.gc();
const before = process.memoryUsage().heapUsed;
const records = readRecords(csv);
global.gc();
console.log(JSON.stringify({ rows: records.length, retainedMiB: (process.memoryUsage().heapUsed - before) / 2 ** 20 }));
`;

describe("the worker's heap cap and the import caps", () => {
  it.each(['empty cells', 'distinct cells'])(
    'the largest file of %s parses within half of the cap',
    (shape) => {
      const run = spawnSync(
        process.execPath,
        [...WORKER_NODE_FLAGS, '--expose-gc', '-r', 'ts-node/register', '-e', PARSE, shape, String(maxBytes), String(maxRows)],
        { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' } },
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const { rows, retainedMiB } = JSON.parse(run.stdout) as { rows: number; retainedMiB: number };
      expect(rows).toBe(maxRows);
      expect(retainedMiB).toBeGreaterThan(1);
      expect(retainedMiB).toBeLessThan(capMiB / 2);
    },
    60_000,
  );
});

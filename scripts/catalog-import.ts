// `npm run catalog:import -- [--if-empty] <file.ndjson> [more.ndjson …]`: upserts catalog items and
// sets from NDJSON into DATABASE_URL. With --if-empty it does nothing when the catalog already has
// items (how `npm start` loads the demo seed once). Exit code 1 when any line was skipped.
import { createReadStream, statSync } from 'node:fs';
import readline from 'node:readline';
import { SingleBar, Presets } from 'cli-progress';
import { loadConfig } from '../src/config';
import { connectAndMigrate } from '../src/db/data-source';
import { importCatalog, type ImportSummary } from '../src/services/catalog/catalog-import';

/** Reads a file line by line, reporting bytes read so the bar tracks real progress. */
function linesOf(file: string, onBytes: (bytes: number) => void): AsyncIterable<string> {
  const stream = createReadStream(file);
  stream.on('data', () => onBytes(stream.bytesRead));
  return readline.createInterface({ input: stream, crlfDelay: Infinity });
}

function printSummary(file: string, s: ImportSummary): void {
  const fmt = (c: ImportSummary['items']) => `${c.inserted} new, ${c.updated} updated, ${c.unchanged} unchanged`;
  console.log(`${file}: ${s.lines} lines; items ${fmt(s.items)}; sets ${fmt(s.sets)}; ${s.skipped.length} skipped`);
  for (const skip of s.skipped) console.log(`  line ${skip.line}: ${skip.reason}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const ifEmpty = args.includes('--if-empty');
  const files = args.filter((a) => a !== '--if-empty');
  if (files.length === 0) throw new Error('usage: npm run catalog:import -- [--if-empty] <file.ndjson> […]');
  const config = loadConfig();
  const db = await connectAndMigrate({ url: config.databaseUrl, poolSize: 2, applicationName: 'marketplace-catalog-import' });
  try {
    if (ifEmpty && (await db.query('SELECT 1 FROM catalog_items LIMIT 1')).length > 0) {
      console.log('catalog already loaded; nothing imported');
      return;
    }
    let skipped = 0;
    for (const file of files) {
      // A bar only on a terminal: in logs and CI it would be noise.
      const bar = process.stdout.isTTY
        ? new SingleBar({ format: `${file} [{bar}] {percentage}% | {lines} lines` }, Presets.shades_classic)
        : null;
      bar?.start(statSync(file).size, 0, { lines: 0 });
      let bytes = 0;
      const summary = await importCatalog(
        db,
        linesOf(file, (b) => (bytes = b)),
        {
          onProgress: (lines) => bar?.update(bytes, { lines }),
        },
      );
      bar?.update(statSync(file).size, { lines: summary.lines });
      bar?.stop();
      printSummary(file, summary);
      skipped += summary.skipped.length;
    }
    if (skipped > 0) process.exitCode = 1;
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

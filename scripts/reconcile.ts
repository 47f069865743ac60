// Recomputes every reported money figure from the ledger rows of DATABASE_URL and prints each
// difference (docs/money.md "Reconcile"); exits 1 when there is one, 0 when all agree:
//   npm run reconcile
// Read-only: it changes nothing, so it can run against a live database at any time.
import { loadConfig } from '../src/config';
import { createDataSource } from '../src/db/data-source';
import { describeDifference, reconcileFigures } from '../src/services/money/reconciliation';

async function main(): Promise<number> {
  const config = loadConfig();
  // Read-only: it connects without migrating (a database behind the code is reported, not changed).
  const db = createDataSource({ url: config.databaseUrl, poolSize: 1, applicationName: 'marketplace-reconcile' });
  await db.initialize();
  try {
    const differences = await reconcileFigures(db, { sellerFeeBps: config.money.sellerFeeBps });
    for (const d of differences) console.log(describeDifference(d));
    console.log(differences.length === 0 ? 'reconcile: no difference' : `reconcile: ${differences.length} difference(s)`);
    return differences.length === 0 ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);

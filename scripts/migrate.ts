// `npm run migrate`: brings the database at DATABASE_URL up to date.
import { loadConfig } from '../src/config';
import { connectAndMigrate } from '../src/db/data-source';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await connectAndMigrate({ url: config.databaseUrl, poolSize: 2, applicationName: 'marketplace-migrate' });
  const applied = await db.query('SELECT count(*)::int AS n FROM migrations');
  console.log(`migrations: ${applied[0].n} applied`);
  await db.destroy();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

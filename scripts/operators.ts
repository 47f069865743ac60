// Operator role management (docs/sellers-operators.md), against DATABASE_URL:
//   npm run operators -- grant <username|email>
//   npm run operators -- revoke <username|email>
//   npm run operators -- list
// The grant records who ran it (the OS user), for the record.
import { userInfo } from 'node:os';
import { loadConfig } from '../src/config';
import { connectAndMigrate } from '../src/db/data-source';
import { OperatorRoles } from '../src/services/operators/operator-roles';

const USAGE = 'usage: npm run operators -- grant <username|email> | revoke <username|email> | list';

async function main(): Promise<void> {
  const [command, user] = process.argv.slice(2);
  const config = loadConfig();
  const db = await connectAndMigrate({ url: config.databaseUrl, poolSize: 1, applicationName: 'marketplace-operators' });
  const operators = new OperatorRoles(db);
  try {
    if (command === 'grant' && user) {
      const granted = await operators.grant(user, `cli:${userInfo().username}`);
      console.log(`${granted.username} (${granted.userId}) is an operator`);
    } else if (command === 'revoke' && user) {
      const revoked = await operators.revoke(user);
      console.log(`${revoked.username} (${revoked.userId}) is no longer an operator`);
    } else if (command === 'list') {
      for (const o of await operators.list())
        console.log(`${o.userId}  ${o.username}  granted ${o.grantedAt.toISOString()} by ${o.grantedBy}`);
    } else {
      throw new Error(USAGE);
    }
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

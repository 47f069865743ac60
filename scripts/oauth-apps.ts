// Operator tool for third-party applications (docs/auth.md), against DATABASE_URL:
//   npm run oauth:apps -- register --name "Deck Builder" --redirect-uri https://app.example/cb [--redirect-uri …] [--public]
//   npm run oauth:apps -- list
//   npm run oauth:apps -- disable <clientId>      |  enable <clientId>
//   npm run oauth:apps -- rotate-secret <clientId>
// `register` and `rotate-secret` print a confidential application's secret: shown once. The
// operator API (`/operator/oauth-apps`, docs/auth.md) does the same over HTTP, audited; this tool
// is for bootstrapping, before anyone holds the operator role.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { connectAndMigrate } from '../src/db/data-source';
import { OAuthApps } from '../src/services/auth/oauth-apps';
import { DomainError } from '../src/services/errors';

const USAGE =
  'usage: npm run oauth:apps -- register --name <name> --redirect-uri <url> [--redirect-uri <url>] [--public] | list | disable <clientId> | enable <clientId> | rotate-secret <clientId>';

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, public: { type: 'boolean', default: false } },
  });
  const [command, clientId] = positionals;
  const config = loadConfig();
  const db = await connectAndMigrate({ url: config.databaseUrl, poolSize: 1, applicationName: 'marketplace-oauth-apps' });
  const apps = new OAuthApps(db);
  try {
    if (command === 'register') {
      if (!values.name || !values['redirect-uri']?.length) throw new Error(USAGE);
      const { client, clientSecret } = await apps.register({
        name: values.name,
        redirectUris: values['redirect-uri'],
        confidential: !values.public,
      });
      console.log(`client_id:     ${client.id}`);
      if (clientSecret) console.log(`client_secret: ${clientSecret}   (shown once; only its hash is stored)`);
      console.log(`redirect URIs: ${client.redirectUris.join(', ')}`);
    } else if (command === 'list') {
      for (const app of await apps.list()) {
        console.log(
          `${app.id}  ${app.name}  ${app.confidential ? 'confidential' : 'public'}  ${app.disabledAt ? 'DISABLED' : 'enabled'}  ${app.linkedUsers} linked  ${app.redirectUris.join(' ')}`,
        );
      }
    } else if ((command === 'disable' || command === 'enable') && clientId) {
      try {
        await apps.setDisabled(clientId, command === 'disable');
        console.log(`${clientId} ${command}d`);
      } catch (err) {
        // Already in that state: nothing to do, as before the operator API answered it with 409.
        if (!(err instanceof DomainError && err.kind === 'conflict')) throw err;
        console.log(`${clientId}: ${err.message}`);
      }
    } else if (command === 'rotate-secret' && clientId) {
      const { clientSecret } = await apps.rotateSecret(clientId);
      console.log(`client_secret: ${clientSecret}   (shown once; the previous secret no longer works)`);
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

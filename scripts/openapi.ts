// Writes the OpenAPI document the service serves at /openapi.json, built from the route table
// alone (no database, no Temporal): `npm run openapi -- <file>`, or stdout without a file.
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config';
import { routeTable } from '../src/http/app';
import { buildOpenApi } from '../src/http/openapi';
import type { Services } from '../src/http/services';

// Handlers are never called here: the route table only needs the object to close over.
const config = loadConfig({
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://unused/unused',
  JWT_SECRET: 'x'.repeat(32),
  // Production requires payload keys; nothing is encrypted here, so an all-zero key will do.
  TEMPORAL_PAYLOAD_KEYS: `unused:${Buffer.alloc(32).toString('base64')}`,
  ...process.env,
});
const document = `${JSON.stringify(buildOpenApi(routeTable({} as Services, config), config.publicBaseUrl), null, 2)}\n`;
const file = process.argv[2];
if (file) writeFileSync(file, document);
else process.stdout.write(document);

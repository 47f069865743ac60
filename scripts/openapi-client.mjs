// Generates the TypeScript types of the OpenAPI document the service serves:
//   generated/openapi.json    — the document, built from the route table (scripts/openapi.ts);
//   generated/api.d.ts        — its types on the wire (openapi-typescript), used with openapi-fetch;
//   generated/api-server.d.ts — its types as route handlers see them after validation
//                               (scripts/openapi-server-types.mjs, used by src/http/contract.ts).
// Run by `npm run build` before the type-check, so a handler, test or script stops compiling when
// the document and its use drift apart. The document is built by ts-node without type-checking,
// so it never needs the types it produces: a fresh clone generates them from nothing. openapi-typescript needs
// TypeScript 5, so it lives in its own package (tools/openapi-client), installed here on first use.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, log } from './lib.mjs';
import { writeServerTypes } from './openapi-server-types.mjs';

const OUT = path.join(ROOT, 'generated');
const TOOL = path.join(ROOT, 'tools/openapi-client');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

mkdirSync(OUT, { recursive: true });
execFileSync(process.execPath, ['-r', 'ts-node/register', path.join(ROOT, 'scripts/openapi.ts'), path.join(OUT, 'openapi.json')], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (!existsSync(path.join(TOOL, 'node_modules/openapi-typescript'))) {
  log('installing openapi-typescript (tools/openapi-client)');
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: TOOL, stdio: 'inherit' });
}
execFileSync(
  process.execPath,
  [
    path.join(TOOL, 'node_modules/openapi-typescript/bin/cli.js'),
    path.join(OUT, 'openapi.json'),
    '--output',
    path.join(OUT, 'api.d.ts'),
    '--default-non-nullable',
    'false',
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
await writeServerTypes(TOOL, path.join(OUT, 'openapi.json'), path.join(OUT, 'api-server.d.ts'));
log('generated/openapi.json, generated/api.d.ts and generated/api-server.d.ts written');

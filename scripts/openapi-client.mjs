// Generates the typed client's types from the OpenAPI document the service serves:
//   generated/openapi.json  — the document, built from the route table (scripts/openapi.ts);
//   generated/api.d.ts      — its TypeScript types (openapi-typescript), used with openapi-fetch.
// Run by `npm run build` before the type-check, so a test or script that drives the API through
// the client stops compiling when the document and its use drift apart. openapi-typescript needs
// TypeScript 5, so it lives in its own package (tools/openapi-client), installed here on first use.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, log } from './lib.mjs';

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
log('generated/openapi.json and generated/api.d.ts written');

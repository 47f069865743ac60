// docs/errors.md from the problem type catalogue (src/domain/problem-types.ts):
// `npm run docs:errors` writes it; `--check` (part of `npm run lint`) fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { problemTypesMarkdown } from '../src/domain/problem-types-page';

function main(): void {
  const file = path.join(__dirname, '../docs/errors.md');
  const page = problemTypesMarkdown();
  if (!process.argv.includes('--check')) {
    writeFileSync(file, page);
    return;
  }
  if (readFileSync(file, 'utf8') !== page) {
    console.error('docs/errors.md is not what src/domain/problem-types.ts says: run `npm run docs:errors`.');
    process.exit(1);
  }
}

main();

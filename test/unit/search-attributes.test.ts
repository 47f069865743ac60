import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/domain/search-attributes';

const root = path.resolve(__dirname, '../..');
const names = SEARCH_ATTRIBUTES.map((k) => k.name).sort();

test('npm start registers every search attribute the workflows use, and no other', () => {
  const script = readFileSync(path.join(root, 'scripts/start.mjs'), 'utf8');
  const listed = [...script.matchAll(/'((?:Case|Webhook|Import)[A-Za-z]+)'/g)].map((m) => m[1]).sort();
  expect(listed).toEqual(names);
});

test('docker-compose registers every search attribute the workflows use, and no other', () => {
  const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
  const listed = [...new Set([...compose.matchAll(/['"]([A-Za-z]+)=Keyword['"]/g)].map((m) => m[1]))].sort();
  expect(listed).toEqual(names);
});

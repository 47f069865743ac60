import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/domain/search-attributes';
import { TASK_QUEUE_FAIRNESS_CONFIG } from '../../src/temporal/task-queue-fairness';

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

test('npm start and docker-compose enable task-queue fairness with the same dynamic configuration as the tests', () => {
  const script = readFileSync(path.join(root, 'scripts/start.mjs'), 'utf8');
  const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
  const inScript = [...script.matchAll(/'(matching\.[A-Za-z]+=[a-z0-9]+)'/g)].map((m) => m[1]).sort();
  const inCompose = [...compose.matchAll(/'(matching\.[A-Za-z]+=[a-z0-9]+)'/g)].map((m) => m[1]).sort();
  expect(inScript).toEqual([...TASK_QUEUE_FAIRNESS_CONFIG].sort());
  expect(inCompose).toEqual([...TASK_QUEUE_FAIRNESS_CONFIG].sort());
});

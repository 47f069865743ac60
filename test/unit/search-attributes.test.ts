import { readFileSync } from 'node:fs';
import { SearchAttributeType } from '@temporalio/common';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/domain/search-attributes';
import { devSearchAttributes, productionSearchAttributes, readCompose } from '../support/compose';
import { parse } from 'yaml';
import { TASK_QUEUE_FAIRNESS_CONFIG } from '../../src/temporal/task-queue-fairness';

const root = path.resolve(__dirname, '../..');
const names = SEARCH_ATTRIBUTES.map((k) => k.name).sort();

test('npm start registers every search attribute the workflows use, and no other', () => {
  const script = readFileSync(path.join(root, 'scripts/start.mjs'), 'utf8');
  const listed = [...script.matchAll(/'((?:Case|Webhook|Import)[A-Za-z]+)'/g)].map((m) => m[1]).sort();
  expect(listed).toEqual(names);
});

test("docker-compose's dev server (default) and its production profile's setup each register every search attribute, and no other", () => {
  const compose = readCompose();
  expect(devSearchAttributes(compose).sort()).toEqual(names);
  expect(productionSearchAttributes(compose).sort()).toEqual(names);
  // Every attribute is a Keyword, which is what both register them as.
  expect(SEARCH_ATTRIBUTES.filter((k) => k.type !== SearchAttributeType.KEYWORD)).toEqual([]);
});

test('npm start and docker-compose enable task-queue fairness with the same dynamic configuration as the tests', () => {
  const script = readFileSync(path.join(root, 'scripts/start.mjs'), 'utf8');
  const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
  const inScript = [...script.matchAll(/'(matching\.[A-Za-z]+=[a-z0-9]+)'/g)].map((m) => m[1]).sort();
  const inCompose = [...compose.matchAll(/'(matching\.[A-Za-z]+=[a-z0-9]+)'/g)].map((m) => m[1]).sort();
  expect(inScript).toEqual([...TASK_QUEUE_FAIRNESS_CONFIG].sort());
  expect(inCompose).toEqual([...TASK_QUEUE_FAIRNESS_CONFIG].sort());
});

test("the production profile's Temporal server reads the same fairness settings from its dynamic configuration file", () => {
  const compose = readCompose();
  const server = compose.services['prod-temporal'];
  const mounted = (server?.volumes ?? []).find((v) => v.endsWith(`:${server?.environment?.DYNAMIC_CONFIG_FILE_PATH}:ro`));
  expect(mounted).toBeDefined();
  const file = parse(readFileSync(path.join(root, mounted!.split(':')[0]!), 'utf8')) as Record<string, Array<{ value: unknown }>>;
  const settings = Object.entries(file).map(([key, [first]]) => `${key}=${String(first?.value)}`);
  expect(settings.sort()).toEqual([...TASK_QUEUE_FAIRNESS_CONFIG].sort());
});

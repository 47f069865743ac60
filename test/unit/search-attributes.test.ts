import { readFileSync } from 'node:fs';
import { SearchAttributeType } from '@temporalio/common';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/domain/search-attributes';
import { devSearchAttributes, productionSearchAttributes, readCompose } from '../support/compose';

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

import { CASE_SEARCH_ATTRIBUTES } from './cases/search-attributes';
import { IMPORT_SEARCH_ATTRIBUTES } from './imports/search-attributes';
import { WEBHOOK_SEARCH_ATTRIBUTES } from './webhooks/search-attributes';

/**
 * Every custom search attribute the workflows use; each must exist on the Temporal server
 * before a workflow carrying it starts (docs/operations.md, "Finding workflows").
 * `scripts/start.mjs` and `docker-compose.yml` list the same names (a unit test checks).
 */
export const SEARCH_ATTRIBUTES = [
  ...Object.values(CASE_SEARCH_ATTRIBUTES),
  ...Object.values(WEBHOOK_SEARCH_ATTRIBUTES),
  ...Object.values(IMPORT_SEARCH_ATTRIBUTES),
];

/** The `--search-attribute` arguments that register them on a Temporal CLI dev server. */
export const SEARCH_ATTRIBUTE_ARGS = SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]);

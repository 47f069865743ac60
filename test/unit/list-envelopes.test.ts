import { loadConfig } from '../../src/config';
import { routeTable } from '../../src/http/app';
import { buildOpenApi } from '../../src/http/openapi';
import type { Services } from '../../src/http/services';

/**
 * Every paged list answers one of the two list envelopes (docs/conventions.md, "Lists"), unless
 * the interface specification fixes its answer. Walks the OpenAPI document built from the route
 * table (as `scripts/openapi.ts` does), so a new paged route cannot invent a third shape.
 */

type Json = Record<string, unknown>;

/**
 * Paged lists whose answer the interface specification fixes, each as the spec states it. These
 * keep their shape; everything else paged answers an envelope.
 */
const SPEC_FIXED: Record<string, (schema: Json) => void> = {
  // Spec, Cases (buyer): "GET /user/cases … 200, array<Case>".
  '/user/cases': (s) => expect(s.type).toBe('array'),
  // Spec, Seller orders: "GET /seller/orders … 200, array of summary order records".
  '/seller/orders': (s) => expect(s.type).toBe('array'),
  // Spec, Conversations: "GET /conversations/{id}/messages … Array<Message>, newest first".
  '/conversations/{id}/messages': (s) => expect(s.type).toBe('array'),
  // Spec, Finance and stats: "GET /seller/payouts … {payouts array<Payout>, cursor string}".
  '/seller/payouts': (s) => expect(Object.keys(s.properties as Json).sort()).toEqual(['cursor', 'payouts']),
};

/** Offset pages that also name the parent they list, beside the envelope's fields. */
const CONTEXT: Record<string, string[]> = {
  // A set page: the set and its game and series, as the other catalog levels answer them.
  '/search/catalog/{game}/{series}/{set}': ['game', 'series', 'set'],
};

/**
 * Offset pages whose total is counted up to a cap (docs/discover.md, "Totals"): they also say
 * whether `total` is exact, as `totalRelation`.
 */
const CAPPED_TOTAL = new Set(['/search']);

const config = loadConfig({
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://unused/unused',
  JWT_SECRET: 'x'.repeat(32),
  TEMPORAL_PAYLOAD_KEYS: `unused:${Buffer.alloc(32).toString('base64')}`,
});
// Handlers are never called: the route table only needs an object to close over.
const doc = buildOpenApi(routeTable({} as Services, config), config.publicBaseUrl) as {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: Record<string, Json> }>>;
  components: { schemas: Record<string, Json> };
};

const resolve = (schema: Json): Json =>
  typeof schema.$ref === 'string' ? resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!) : schema;

const pagedLists = Object.entries(doc.paths).flatMap(([path, methods]) => {
  const get = methods.get;
  if (!get) return [];
  const query = (get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const kind = query.includes('cursor') ? 'cursor' : query.includes('page') || query.includes('size') ? 'offset' : null;
  if (!kind) return [];
  const content = (get.responses['200'] as { content: Record<string, { schema: Json }> }).content;
  return [{ path, kind, schema: resolve(content['application/json']!.schema) }];
});

const integer = (s: Json) => expect(s).toMatchObject({ type: 'integer' });

describe('list envelopes', () => {
  it('finds the paged lists (a guard against the walk itself finding nothing)', () => {
    expect(pagedLists.length).toBeGreaterThan(15);
    for (const path of Object.keys(SPEC_FIXED)) expect(pagedLists.map((l) => l.path)).toContain(path);
  });

  it.each(pagedLists.map((l) => [l.path, l.kind, l.schema] as const))('GET %s (%s paging)', (path, kind, schema) => {
    const fixed = SPEC_FIXED[path];
    if (fixed) return fixed(schema);
    const properties = schema.properties as Record<string, Json>;
    expect(schema.type).toBe('object');
    expect(properties.items).toMatchObject({ type: 'array' });
    expect(resolve(properties.items!.items as Json)).toEqual(expect.any(Object));
    if (kind === 'offset') {
      const relation = CAPPED_TOTAL.has(path) ? ['totalRelation'] : [];
      expect(Object.keys(properties).sort()).toEqual(['items', 'page', 'size', 'total', ...relation, ...(CONTEXT[path] ?? [])].sort());
      expect(schema.required).toEqual(expect.arrayContaining(['items', 'total', 'page', 'size', ...relation]));
      if (relation.length) expect(properties.totalRelation).toMatchObject({ enum: ['eq', 'gte'] });
      for (const field of ['total', 'page', 'size']) integer(properties[field]!);
    } else {
      expect(Object.keys(properties).sort()).toEqual(['items', 'nextCursor']);
      expect(schema.required).toEqual(expect.arrayContaining(['items', 'nextCursor']));
      expect(JSON.stringify(properties.nextCursor)).toMatch(/"string"/);
      expect(JSON.stringify(properties.nextCursor)).toMatch(/"null"/);
    }
  });
});

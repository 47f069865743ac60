import type Joi from 'joi';

/**
 * Joi → OpenAPI 3.1 schemas that code generators and linters accept. Built on joi-to-json's
 * parser, with what it gets wrong for this API put right:
 * - schemas marked `.meta({ component: 'Name' })` become named components (`$ref`); one name,
 *   one shape (a clash throws). A meta rather than Joi's `.id()`, which refuses one schema twice
 *   in an object once either copy is modified (`.required()`); a schema extended with `.keys()`
 *   keeps its parent's name unless given its own (the last one wins);
 * - maps (`Joi.object().pattern(keySchema, valueSchema)`) become `additionalProperties: {…}`
 *   (and `propertyNames` when keys are constrained), not an empty closed object;
 * - `documentedAs(schema, doc)` publishes `doc` for a value validated by `schema` elsewhere
 *   (e.g. bulk elements, each validated on its own by the service);
 * - a limit given as `Joi.ref('other')` is not leaked as an object: it is dropped from the
 *   keyword and said in the description;
 * - a string Joi refuses empty (any `Joi.string()` without `.allow('')`, `.empty(…)` or a length
 *   rule) says `minLength: 1`; a string with several `.pattern()`s publishes them all (the first as
 *   `pattern`, the others under `allOf`), not only the last; an inverted pattern is a `not`; an
 *   object's `.min()`/`.max()`/`.length()` are `minProperties`/`maxProperties`, its `.or()` an
 *   `anyOf` of `required`; a trimmed string
 *   Joi refuses empty has a pattern asking for a character besides white space (and NUL); a URI
 *   limited to some schemes (`uri({ scheme })`) has a pattern naming them;
 * - a number Joi keeps safe (no `.unsafe()`) is bounded by ±(2^53 - 1) where it has no bound;
 * - alternatives that also allow null list null as one more alternative, `{type: 'null'}`
 *   (never `{const: null}`, which generators type as `unknown`);
 * - an object open to keys it does not list says `__proto__` is not one (the body parser refuses it);
 * - a `.default(null)` is published (joi-to-json drops it), so the field reads as present once validated;
 * - a body whose fields depend on one field's literal value (`.when('action', { is: 'x', … })`)
 *   becomes a `oneOf` of one shape per value with a `discriminator`, and `.xor(a, b)` a `oneOf`
 *   of one shape per peer; when the object is named, each shape is a component too
 *   (`TokenRequest` → `TokenRequestPassword`, …). Other conditions keep their base schema.
 */

type JsonSchema = Record<string, unknown>;

interface Description {
  type: string;
  flags?: Record<string, unknown>;
  keys?: Record<string, Description>;
  whens?: When[];
  allow?: unknown[];
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  patterns?: Array<{ schema?: Description; regex?: string; rule: Description }>;
  dependencies?: Array<{ rel: string; peers: string[] }>;
  metas?: Array<Record<string, unknown>>;
  [other: string]: unknown;
}

interface When {
  ref?: { path: string[] };
  is?: Description;
  then?: Description;
  otherwise?: Description;
  switch?: unknown;
}

interface BaseParser {
  _setNumberFieldProperties(fieldSchema: JsonSchema, fieldDefn: Description): void;
  _setStringFieldProperties(fieldSchema: JsonSchema, fieldDefn: Description): void;
  parse(spec: Description, definitions: Record<string, JsonSchema>, level: number): JsonSchema;
  _setObjectProperties(schema: JsonSchema, spec: Description, definitions: Record<string, JsonSchema>, level: number): void;
}

// joi-to-json exposes its parsers only as CommonJS classes without types; this is the 3.1 one.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Base = require('joi-to-json/lib/parsers/open-api-3.1') as new () => BaseParser;

const COMPONENTS = '#/components/schemas/';
const LIMITS: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'more than',
  exclusiveMaximum: 'less than',
  minLength: 'at least as long as',
  maxLength: 'at most as long as',
  minItems: 'at least as many items as',
  maxItems: 'at most as many items as',
};

const isLiteral = (v: unknown): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v);
const pascal = (v: string | number | boolean) =>
  String(v)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The literal values a `when`'s `is` matches, or null when it is not a plain list of values. */
function literalValues(
  when: When,
  siblings: Record<string, Description>,
): { key: string; values: Array<string | number | boolean> } | null {
  const key = when.ref?.path.length === 1 ? when.ref.path[0]! : undefined;
  if (!key || !siblings[key] || !when.is?.flags?.only || when.is.rules?.length) return null;
  const values = (when.is.allow ?? []).filter(isLiteral);
  return values.length ? { key, values } : null;
}

/** A field's schema once its condition is decided: the branch refines the base. */
function resolveWhen(field: Description, when: When, matches: boolean): Description {
  const { whens: _whens, ...base } = field;
  const branch = matches ? when.then : when.otherwise;
  if (!branch) return base;
  const refinesOnlyFlags = branch.type === 'any' && !branch.rules?.length && !branch.allow?.length;
  return refinesOnlyFlags
    ? { ...base, flags: { ...base.flags, ...branch.flags } }
    : { ...branch, flags: { ...base.flags, ...branch.flags } };
}

/** The component name a schema was given (the last, when an extension renamed its parent's). */
const componentName = (spec: Description): string | undefined =>
  [...(spec.metas ?? [])].reverse().find((m) => typeof m.component === 'string')?.component as string | undefined;

const withoutName = (spec: Description): Description => ({ ...spec, metas: (spec.metas ?? []).filter((m) => m.component === undefined) });

/** A shape of a union: the object's examples and description belong to the union, not to each shape. */
const asShape = (spec: Description, keys: Record<string, Description>, extra: Partial<Description> = {}): Description => {
  const { examples: _examples, ...rest } = withoutName(spec);
  const { description: _description, ...flags } = rest.flags ?? {};
  return { ...rest, flags, keys, ...extra };
};

interface Variant {
  name: string;
  spec: Description;
  discriminatorValue?: string | number | boolean;
}

/** One shape per value of the field the others depend on; null when the object has no such field. */
function splitOnDiscriminator(spec: Description): { key: string; variants: Variant[] } | null {
  const keys = spec.keys ?? {};
  let found: { key: string; values: Set<string | number | boolean> } | null = null;
  for (const field of Object.values(keys)) {
    for (const when of field.whens ?? []) {
      const literal = literalValues(when, keys);
      if (!literal || (found && found.key !== literal.key)) continue;
      found ??= { key: literal.key, values: new Set() };
      for (const v of literal.values) found.values.add(v);
    }
  }
  if (!found) return null;
  const discriminator = keys[found.key]!;
  const own = discriminator.flags?.only ? (discriminator.allow ?? []).filter(isLiteral) : [];
  const values = own.length ? own : [...found.values];
  const variants = values.map((value) => {
    const variantKeys: Record<string, Description> = {};
    for (const [name, field] of Object.entries(keys)) {
      if (name === found.key) {
        variantKeys[name] = { ...field, allow: [value], flags: { ...field.flags, only: true, presence: 'required' } };
        continue;
      }
      let resolved: Description = field;
      for (const when of field.whens ?? []) {
        const literal = literalValues(when, keys);
        resolved =
          literal?.key === found.key ? resolveWhen(resolved, when, literal.values.includes(value)) : resolveWhen(resolved, when, false);
      }
      if (resolved.flags?.presence !== 'forbidden') variantKeys[name] = resolved;
    }
    return { name: pascal(value), spec: asShape(spec, variantKeys), discriminatorValue: value };
  });
  return { key: found.key, variants };
}

/** `.xor(a, b)`: one shape per peer, with that peer required and the others absent. */
function splitOnXor(spec: Description): Variant[] | null {
  const xor = spec.dependencies?.find((d) => d.rel === 'xor');
  if (!xor) return null;
  const dependencies = spec.dependencies!.filter((d) => d !== xor);
  return xor.peers.map((peer) => {
    const keys: Record<string, Description> = {};
    for (const [name, field] of Object.entries(spec.keys ?? {})) {
      if (name === peer) keys[name] = { ...field, flags: { ...field.flags, presence: 'required' } };
      else if (!xor.peers.includes(name)) keys[name] = field;
    }
    return { name: `By${pascal(peer)}`, spec: asShape(spec, keys, { dependencies }) };
  });
}

const stripWhens = (spec: Description): Description => {
  if (!spec.whens) return spec;
  const { whens: _whens, ...rest } = spec;
  return rest;
};

/** Not only white space, and no NUL. */
const NOT_BLANK = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

/** One more pattern a string must match: `pattern` when it has none yet, else under `allOf`. */
function addPattern(schema: JsonSchema, pattern: string): void {
  if (schema.pattern === undefined) schema.pattern = pattern;
  else schema.allOf = [...((schema.allOf as JsonSchema[] | undefined) ?? []), { pattern }];
}

/**
 * `^(?:[hH][tT][tT][pP]|[hH][tT][tT][pP][sS]):` for `['http', 'https']`: a URI's scheme, matched
 * without regard to case as RFC 3986 says, written out because JSON Schema patterns take no flags.
 */
function schemePattern(schemes: string[]): string {
  const anyCase = (scheme: string) =>
    [...scheme].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.+-]/g, '\\$&'))).join('');
  return `^(?:${schemes.map(anyCase).join('|')}):`;
}

/** `/^a$/u` (Joi's description of a regex) → `^a$` (an ECMA-262 pattern, as JSON Schema wants). */
const regexSource = (regex: string): string => regex.replace(/^\//, '').replace(/\/[a-z]*$/, '');

class Parser extends Base {
  override _setNumberFieldProperties(fieldSchema: JsonSchema, fieldDefn: Description): void {
    super._setNumberFieldProperties(fieldSchema, fieldDefn);
    if (fieldSchema.type !== 'number' && fieldSchema.type !== 'integer') return;
    // Joi refuses a number beyond ±(2^53 - 1) ("must be a safe number") unless told `.unsafe()`.
    if (fieldDefn.flags?.unsafe) return;
    if (fieldSchema.minimum === undefined && fieldSchema.exclusiveMinimum === undefined) fieldSchema.minimum = Number.MIN_SAFE_INTEGER;
    if (fieldSchema.maximum === undefined && fieldSchema.exclusiveMaximum === undefined) fieldSchema.maximum = Number.MAX_SAFE_INTEGER;
  }

  override _setStringFieldProperties(fieldSchema: JsonSchema, fieldDefn: Description): void {
    super._setStringFieldProperties(fieldSchema, fieldDefn);
    if (fieldSchema.type !== 'string') return;
    const rules = fieldDefn.rules ?? [];
    const patterns = rules.filter((r) => r.name === 'pattern' && typeof r.args?.regex === 'string');
    if (patterns.length) {
      const matching = patterns.filter((r) => !(r.args?.options as { invert?: boolean } | undefined)?.invert);
      const inverted = patterns.filter((r) => (r.args?.options as { invert?: boolean } | undefined)?.invert);
      const sources = matching.map((r) => regexSource(r.args!.regex as string));
      delete fieldSchema.pattern;
      if (sources.length) fieldSchema.pattern = sources[0];
      const more = [
        ...sources.slice(1).map((pattern) => ({ pattern })),
        ...inverted.map((r) => ({ not: { pattern: regexSource(r.args!.regex as string) } })),
      ];
      if (more.length) fieldSchema.allOf = more;
    }
    // `format: uri` allows any scheme; a URI Joi limits to some (http, https) says which.
    const schemes = (rules.find((r) => r.name === 'uri')?.args?.options as { scheme?: string | string[] } | undefined)?.scheme;
    if (schemes) {
      addPattern(fieldSchema, schemePattern([schemes].flat()));
    }
    // Joi refuses '' unless told otherwise; JSON Schema accepts it unless told.
    const allowsEmpty = (fieldDefn.allow ?? []).includes('') || fieldDefn.flags?.empty !== undefined || fieldDefn.flags?.only;
    const hasLength = rules.some((r) => r.name === 'min' || r.name === 'length');
    if (!allowsEmpty && !hasLength && fieldSchema.minLength === undefined) fieldSchema.minLength = 1;
    // A trimmed string Joi refuses empty must hold something besides white space (and, as every
    // string of a request, no NUL: docs/conventions.md, "Text"; said here because a pattern
    // would otherwise let generators put NUL around the character it asks for).
    const trimmed = rules.some((r) => r.name === 'trim' && r.args?.enabled !== false);
    if (trimmed && !allowsEmpty) {
      addPattern(fieldSchema, NOT_BLANK);
    }
  }

  override parse(spec: Description, definitions: Record<string, JsonSchema>, level = 0): JsonSchema {
    const documented = spec.metas?.find((m) => m.documentedAs)?.documentedAs as Description | undefined;
    if (documented) return this.parse(documented, definitions, level);
    const name = componentName(spec);
    const inner = name ? withoutName(spec) : spec;
    let schema: JsonSchema;
    const discriminated = inner.type === 'object' && inner.keys ? splitOnDiscriminator(inner) : null;
    const xor = inner.type === 'object' && inner.keys && !discriminated ? splitOnXor(inner) : null;
    if (discriminated) schema = this.union(inner, discriminated.variants, definitions, level, name, discriminated.key);
    else if (xor) schema = this.union(inner, xor, definitions, level, name);
    else {
      schema = super.parse(stripWhens(inner), definitions, level);
      dropReferencedLimits(schema);
      nullAsAlternative(schema);
      // joi-to-json leaves out a `null` default; the field is still present (null) once validated.
      if (inner.flags?.default === null) schema.default = null;
      // `Joi.valid(null)` (an `orNull` alternative) is `{const: null}`, which generators type as
      // `unknown`; `{type: 'null'}` says the same and keeps `Summary | null` typed.
      if (Object.keys(schema).length === 1 && schema.const === null) schema = { type: 'null' };
    }
    if (!name) return schema;
    // A description says what the value means where it is used (`userA`: who opened the
    // conversation), so it stays beside the reference and the component keeps one shape.
    // So does a default: what fills in the field when it is left out belongs to the field.
    const { description, default: fallback, ...shape } = schema;
    definitions[name] = shape;
    return {
      $ref: `${COMPONENTS}${name}`,
      ...(description ? { description } : {}),
      ...(fallback !== undefined ? { default: fallback } : {}),
    };
  }

  override _setObjectProperties(schema: JsonSchema, spec: Description, definitions: Record<string, JsonSchema>, level: number): void {
    super._setObjectProperties(schema, spec, definitions, level);
    if (schema.type !== 'object') return;
    for (const pattern of spec.patterns ?? []) {
      const properties = schema.properties as JsonSchema | undefined;
      if (pattern.regex && properties) delete properties[pattern.regex];
      if (pattern.schema) {
        // A map: any key the key schema accepts, each value of the value schema.
        schema.additionalProperties = this.parse(pattern.rule, definitions, level + 1);
        const names = this.parse(pattern.schema, definitions, level + 1);
        if (Object.keys(names).some((k) => k !== 'type')) schema.propertyNames = names;
      }
    }
    // A forbidden key (`not: {}`) says nothing a closed object does not already say.
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    if (properties && schema.additionalProperties === false) {
      for (const [key, property] of Object.entries(properties)) {
        if (property.not && Object.keys(property.not).length === 0 && Object.keys(property).length === 1) delete properties[key];
      }
    }
    // `.or(a, b)`: at least one of them.
    const or = spec.dependencies?.find((d) => d.rel === 'or');
    if (or) schema.anyOf = or.peers.map((peer) => ({ required: [peer] }));
    // `.min(n)`, `.max(n)`, `.length(n)` on an object count its keys; joi-to-json drops them.
    for (const rule of spec.rules ?? []) {
      const limit = rule.args?.limit;
      if (typeof limit !== 'number') continue;
      if (rule.name === 'min' || rule.name === 'length') schema.minProperties = limit;
      if (rule.name === 'max' || rule.name === 'length') schema.maxProperties = limit;
    }
    // `Joi.object()` without keys accepts any keys; joi-to-json would publish it closed.
    if (spec.keys === undefined && !spec.patterns?.length && spec.flags?.unknown === undefined) schema.additionalProperties = true;
    // Any key but `__proto__`, which the JSON body parser refuses (prototype poisoning) before
    // any schema sees the body: said wherever an object takes keys it does not list.
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
      schema.propertyNames = { ...((schema.propertyNames as JsonSchema | undefined) ?? {}), not: { const: '__proto__' } };
    }
    if (properties && Object.keys(properties).length === 0) delete schema.properties;
  }

  /** One shape per variant; named after the object (`TokenRequest` → `TokenRequestPassword`) when it has a name. */
  private union(
    spec: Description,
    variants: Variant[],
    definitions: Record<string, JsonSchema>,
    level: number,
    name?: string,
    discriminator?: string,
  ): JsonSchema {
    const shapes = variants.map((v) => {
      const schema = this.parse(v.spec, definitions, level + 1);
      if (!name) return schema;
      definitions[`${name}${v.name}`] = schema;
      return { $ref: `${COMPONENTS}${name}${v.name}` };
    });
    const description = spec.flags?.description as string | undefined;
    const mapping =
      name && discriminator
        ? Object.fromEntries(variants.map((v, i) => [String(v.discriminatorValue), (shapes[i] as { $ref: string }).$ref]))
        : undefined;
    return {
      ...(description ? { description } : {}),
      ...(spec.examples ? { examples: spec.examples } : {}),
      oneOf: shapes,
      ...(mapping ? { discriminator: { propertyName: discriminator, mapping } } : {}),
    };
  }
}

/**
 * `Joi.alternatives(a, b).allow(null)`: joi-to-json publishes `{anyOf: [a, b], type: 'null'}`,
 * which only null satisfies besides nothing; null is one more alternative.
 */
function nullAsAlternative(schema: JsonSchema): void {
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (!union || schema.type === undefined) return;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (!types.includes('null')) return;
  delete schema.type;
  union.push({ type: 'null' });
}

/** A limit given as `Joi.ref('x')` cannot be a number in the schema: say it in words instead. */
function dropReferencedLimits(schema: JsonSchema): void {
  const notes: string[] = [];
  for (const [keyword, words] of Object.entries(LIMITS)) {
    const value = schema[keyword] as { ref?: { path?: string[] } } | number | undefined;
    if (value === undefined || typeof value === 'number') continue;
    delete schema[keyword];
    notes.push(`${words} \`${value.ref?.path?.join('.') ?? 'another field'}\``);
  }
  if (notes.length) schema.description = [schema.description, `Must be ${notes.join(' and ')}.`].filter(Boolean).join(' ');
}

/**
 * Named schemas collected while converting: a name registered twice must mean the same shape,
 * or generated clients would silently get one of the two.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  add(name: string, schema: JsonSchema): void {
    const existing = this.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`OpenAPI component ${name} is defined twice with different shapes; give one of them another name`);
    }
    this.schemas[name] = schema;
  }

  /** The OpenAPI schema of a Joi schema; its named parts are added here and referenced. */
  convert(joi: Joi.Schema): JsonSchema {
    const definitions: Record<string, JsonSchema> = {};
    const guarded = new Proxy(definitions, {
      set: (target, name: string, value: JsonSchema) => {
        const before = target[name];
        if (before && JSON.stringify(before) !== JSON.stringify(value)) {
          throw new Error(`OpenAPI component ${name} is defined twice with different shapes; give one of them another name`);
        }
        target[name] = value;
        return true;
      },
    });
    // Level 1: at level 0 joi-to-json would attach the definitions to the schema itself.
    const schema = new Parser().parse(joi.describe() as Description, guarded, 1);
    for (const [name, definition] of Object.entries(definitions)) this.add(name, definition);
    return schema;
  }
}

import Joi from '../../joi';
import type { ItemView } from './item-view';
import { NO_TRAILING_SLASH, URN_MAX_LENGTH, URN_SHAPE } from './urn';

/**
 * The spec's Item shape as found in catalog NDJSON (`items.ndjson`), plus the seed's
 * `referencePrice`; the live-listing fields are derived, so an import ignores them.
 */
export type ItemLine = Omit<ItemView, 'price' | 'available' | 'quantity' | 'min' | 'max'> & { referencePrice: number | null };

type SetFields = ItemView['set'];

/** A `sets.ndjson` line: a set with its series, so sets without items still appear. */
export interface SetLine extends SetFields {
  series: { name: string; urn: string };
}

export type CatalogLine = { kind: 'item'; item: ItemLine } | { kind: 'set'; set: SetLine };

const urn = Joi.string()
  .max(URN_MAX_LENGTH)
  .pattern(URN_SHAPE)
  .message('{{#label}} must be segments of letters, digits, ".", "_", "~" or "-" joined by "/"')
  .pattern(NO_TRAILING_SLASH)
  .message('{{#label}} must not end with "/"');
const text = Joi.string().allow('');
const nullableInt = Joi.number().integer().min(0).allow(null);

const setFields = {
  urn: urn.required(),
  name: Joi.string().required(),
  counts: Joi.object({ printed: nullableInt, total: nullableInt }).default({ printed: null, total: null }),
  references: Joi.array().items(Joi.string()).default([]),
  size: nullableInt.default(null),
  symbol: Joi.object({ url: Joi.string().allow(null).default(null) }).default({ url: null }),
  released: Joi.string().allow(null).default(null),
};
const seriesRef = Joi.object({ name: Joi.string().required(), urn: urn.required() }).required();

const itemSchema = Joi.object({
  urn: urn.required(),
  slug: Joi.string()
    .max(200)
    .pattern(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    .required(),
  type: Joi.string().default('card'),
  game: Joi.string().required(),
  title: Joi.string().required(),
  name: Joi.string().required(),
  rarity: text.default(''),
  number: text.default(''),
  description: text.default(''),
  set: Joi.object(setFields).required(),
  series: seriesRef,
  images: Joi.array()
    .items(
      Joi.object({
        urn: Joi.string().required(),
        orientation: Joi.string().required(),
        url: Joi.string().required(),
        illustrator: text.default(''),
      }),
    )
    .default([]),
  alternatives: Joi.array().items(Joi.string()).default([]),
  metadata: Joi.array()
    // `detail` is an array the spec leaves untyped and the real catalog leaves empty: held to
    // strings, so the published Item schema can say what its elements are.
    .items(Joi.object({ name: Joi.string().required(), value: text.required(), detail: Joi.array().items(text).default([]) }))
    .default([]),
  referencePrice: Joi.number().integer().min(0).allow(null).default(null),
}).unknown(true); // exported Items also carry price/available/…: derived here, so ignored

const setSchema = Joi.object({ ...setFields, series: seriesRef });

const isUnder = (child: string, parent: string) => child.startsWith(`${parent}/`) && !child.slice(parent.length + 1).includes('/');

/** Each URN must sit directly under its parent's: game / series / set / item. */
function hierarchyError(line: CatalogLine): string | null {
  const set = line.kind === 'item' ? line.item.set : line.set;
  const series = line.kind === 'item' ? line.item.series : line.set.series;
  if (line.kind === 'item' && !isUnder(line.item.urn, set.urn)) return `"urn" ${line.item.urn} is not an item of set ${set.urn}`;
  if (!isUnder(set.urn, series.urn)) return `set ${set.urn} is not in series ${series.urn}`;
  if (series.urn.split('/').length !== 2) return `series ${series.urn} must be "{game}/{series}"`;
  return null;
}

export class BadLine extends Error {}

/**
 * Parses one NDJSON line: an Item (it has `slug` and an embedded `set`) or a set line (it has
 * an embedded `series` but no `slug`). Throws BadLine with every problem found.
 */
export function parseCatalogLine(raw: string): CatalogLine {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new BadLine('not valid JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new BadLine('not a JSON object');
  const isItem = 'slug' in json || 'set' in json;
  const { value, error } = (isItem ? itemSchema : setSchema).validate(json, { abortEarly: false, convert: false });
  if (error) throw new BadLine(`${isItem ? 'item' : 'set'}: ${error.details.map((d) => d.message).join('; ')}`);
  const line: CatalogLine = isItem ? { kind: 'item', item: value as ItemLine } : { kind: 'set', set: value as SetLine };
  const mismatch = hierarchyError(line);
  if (mismatch) throw new BadLine(mismatch);
  return line;
}

/** The game URN is the first segment of any catalog URN (`pokemon/base` → `pokemon`). */
export const gameUrnOf = (anyUrn: string) => anyUrn.split('/')[0]!;

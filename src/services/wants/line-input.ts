import Joi, { VALIDATION_OPTIONS } from '../../joi';
import { CONDITIONS, ISO_639_1, MAX_PRICE } from '../listings/listing-input';

/** How many lists a user keeps, and lines a list holds (docs/wants.md). */
export const MAX_WANTS_LISTS = 20;
export const MAX_WANTS_LINES = 1000;

export type Condition = (typeof CONDITIONS)[number];

/** A variant a wanted card must have, as listings state theirs (`{ "name": "finish", "value": "reverse holo" }`). */
export interface WantedVariant {
  name: string;
  value: string;
}

/** A card by name within a game: any printing of it (every item of the game with that name, case-blind). */
export interface WantedCard {
  game: string;
  name: string;
}

/** What a client sends for one line: exactly one of `urn` and `card`; the options are null or absent when not wanted. */
export interface WantsLineInput {
  urn?: string;
  card?: WantedCard;
  quantity: number;
  minCondition?: Condition | null;
  languages?: string[] | null;
  variants?: WantedVariant[] | null;
  maxPrice?: number | null;
}

export const listName = Joi.string().trim().min(1).max(100).description('1–100 characters, unique among the caller’s lists.');

/** One item, as a wants line or a price alert names it. */
export const urn = Joi.string()
  .trim()
  .min(1)
  .max(300)
  .pattern(/[^/]$/, 'a URN that does not end in "/"')
  .description('One catalog item: only that printing fits.');
/** A card by name within a game, as a wants line or a price alert names it. */
export const card = Joi.object({
  game: Joi.string().trim().min(1).max(300).required().description('The game’s URN, e.g. `pokemon`.'),
  name: Joi.string().trim().min(1).max(200).required().description('A card name of that game, matched case-blind.'),
})
  .description('A card by name within a game: every printing of it fits.')
  .meta({ component: 'WantedCard' });

/** What a listing must meet, and the price it must be within: a wants line's options, which price alerts share. */
export const lineOptions = {
  minCondition: Joi.string()
    .valid(...CONDITIONS)
    .allow(null)
    .description('The worst condition accepted; conditions are ordered best first (`MINT` … `POOR`).'),
  languages: Joi.array()
    .items(
      Joi.string()
        .lowercase()
        .pattern(/^[a-z]{2}$/, ISO_639_1),
    )
    .min(1)
    .max(20)
    .unique()
    .allow(null)
    .description('Languages accepted (ISO 639-1, as listings state theirs); null: any.'),
  variants: Joi.array()
    .items(
      // No `;` in either and no `=` in a name: the CSV writes variants as `name=value;name=value`.
      Joi.object({
        name: Joi.string()
          .trim()
          .min(1)
          .max(50)
          .pattern(/^[^;=]+$/, 'text without ";" or "="')
          .required(),
        value: Joi.string()
          .trim()
          .min(1)
          .max(100)
          .pattern(/^[^;]+$/, 'text without ";"')
          .required(),
      }).meta({ component: 'WantedVariant' }),
    )
    .min(1)
    .max(10)
    .allow(null)
    .description('Variants a listing must all have (it may have more); null: any.'),
  maxPrice: Joi.number().integer().min(1).max(MAX_PRICE).allow(null).description('Pence per unit; null: any price.'),
};

const quantity = Joi.number().integer().min(1).max(99);

/** A new line: the one definition, shared by `POST /user/wants/{id}/lines` and each CSV row of an import. */
export const wantsLineInput = Joi.object<WantsLineInput>({ urn, card, quantity: quantity.required(), ...lineOptions })
  .xor('urn', 'card')
  .example({ card: { game: 'pokemon', name: 'Charizard' }, quantity: 2, minCondition: 'GOOD', languages: ['en'], maxPrice: 25000 })
  .meta({ component: 'WantsLineInput' });

/**
 * A change to a line: any of its fields; giving `urn` or `card` turns the line into that kind.
 * (The document states "not both" in prose: JSON Schema converters publish `oxor` as shapes the
 * OpenAPI lint refuses.)
 */
const patchFields = { urn, card, quantity, ...lineOptions };
export const wantsLinePatch = Joi.object<Partial<WantsLineInput>>(patchFields)
  .oxor('urn', 'card')
  .min(1)
  .meta({ documentedAs: Joi.object(patchFields).min(1).description('At most one of `urn` and `card`.').describe() })
  .example({ quantity: 3, maxPrice: null });

/** Validates a line outside the router (a CSV row): the value, or every failure as one sentence. */
export function parseLineInput(value: unknown): { value: WantsLineInput; error: null } | { value: null; error: string } {
  const result = wantsLineInput.validate(value, VALIDATION_OPTIONS);
  if (!result.error) return { value: result.value, error: null };
  return { value: null, error: result.error.details.map((d) => d.message).join('; ') };
}

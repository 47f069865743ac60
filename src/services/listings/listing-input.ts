import Joi, { VALIDATION_OPTIONS } from '../../joi';
import type { FieldError } from '../errors';

/** A language as listings and wants lines state it: the name of its pattern, read after "must be". */
export const ISO_639_1 = 'an ISO 639-1 language code of two letters, such as "en"';

/** Product conditions a listing may state, best first. */
export const CONDITIONS = ['MINT', 'NEAR_MINT', 'EXCELLENT', 'GOOD', 'LIGHT_PLAYED', 'PLAYED', 'POOR'] as const;

/** Upper bounds that keep a single listing sane (pence and units). */
export const MAX_PRICE = 100_000_000;
export const MAX_QUANTITY = 100_000;

/** What a seller sends to create or (fully) update a listing; also one row of a CSV import. */
export interface ListingInput {
  urn: string;
  condition: string;
  language: string;
  price: number;
  quantity: number;
  comment: string;
  gradingProvider: string | null;
  gradingScore: string | null;
  gradingNumber: string | null;
  notes: string | null;
  reference: string | null;
  hidden: boolean;
  variants: Array<Record<string, string | number | boolean | null>>;
  offers: OfferSettings;
}

/**
 * Whether buyers may make offers on a listing (docs/offers.md), and the seller's thresholds in
 * pence per unit: an offer at or above `autoAcceptAt` is accepted at once, one below
 * `autoDeclineBelow` declined at once.
 */
export interface OfferSettings {
  enabled: boolean;
  autoAcceptAt: number | null;
  autoDeclineBelow: number | null;
}

export const NO_OFFERS: OfferSettings = { enabled: false, autoAcceptAt: null, autoDeclineBelow: null };

const threshold = Joi.number().integer().min(1).max(MAX_PRICE).allow(null).default(null);

/** A listing's offer settings; absent means offers are off. */
export const offerSettings = Joi.object<OfferSettings>({
  enabled: Joi.boolean().required(),
  autoAcceptAt: threshold.description('Pence per unit: an offer at or above it is accepted at once.'),
  autoDeclineBelow: threshold
    .when('autoAcceptAt', { is: Joi.number().required(), then: Joi.number().max(Joi.ref('autoAcceptAt')) })
    .description('Pence per unit: an offer below it is declined at once. At most `autoAcceptAt`.'),
})
  .default(NO_OFFERS)
  .meta({ component: 'OfferSettings' });

const optionalText = (max: number) => Joi.string().trim().max(max).empty('').allow(null).default(null);

/**
 * The one definition of a well-formed listing, shared by the HTTP routes and the CSV import.
 * Malformed input is refused (400 / a row error); well-formed but incomplete listings are
 * stored and reported `valid: false` (see `validity.ts`).
 */
export const listingInput = Joi.object<ListingInput>({
  urn: Joi.string().trim().min(1).max(300).pattern(/[^/]$/, 'a URN that does not end in "/"').required(),
  condition: Joi.string()
    .valid(...CONDITIONS)
    .required(),
  language: Joi.string()
    .lowercase()
    .pattern(/^[a-z]{2}$/, ISO_639_1)
    .required(),
  price: Joi.number().integer().min(0).max(MAX_PRICE).required().description('Pence.'),
  quantity: Joi.number().integer().min(0).max(MAX_QUANTITY).required(),
  comment: Joi.string().trim().max(500).allow('').default(''),
  gradingProvider: optionalText(50),
  gradingScore: optionalText(20),
  gradingNumber: optionalText(50),
  notes: optionalText(255).description('Private seller notes (e.g. SKU). At most 255 characters.'),
  reference: optionalText(255).description('Third-party integration reference. At most 255 characters.'),
  hidden: Joi.boolean().default(false),
  variants: Joi.array()
    .items(
      Joi.object()
        .pattern(Joi.string().max(50), Joi.alternatives(Joi.string().max(100), Joi.number(), Joi.boolean()).allow(null))
        .max(10),
    )
    .max(10)
    .default([]),
  offers: offerSettings,
})
  .example({
    urn: 'pokemon/base/base1/4',
    condition: 'NEAR_MINT',
    language: 'en',
    price: 24999,
    quantity: 1,
    comment: 'Unlimited print, centred, light edge wear on the back.',
    notes: 'SKU BS-004-NM',
    offers: { enabled: true, autoAcceptAt: 22000, autoDeclineBelow: 15000 },
  })
  .meta({ component: 'ListingInput' });

/** Validates one listing outside the router (bulk elements, CSV rows); `prefix` locates it. */
export function parseListingInput(
  value: unknown,
  where: { in: string; prefix: string },
): { value: ListingInput; errors: null } | { value: null; errors: FieldError[] } {
  const result = listingInput.validate(value, VALIDATION_OPTIONS);
  if (!result.error) return { value: result.value, errors: null };
  return {
    value: null,
    errors: result.error.details.map((d) => ({
      in: where.in,
      field: [where.prefix, ...d.path].filter((p) => p !== '').join('.'),
      message: d.message,
    })),
  };
}

import Joi from 'joi';

/** Shared field schemas, so one rule (e.g. what a username is) is written once. */
export const email = Joi.string().trim().email({ tlds: false }).max(254);
export const username = Joi.string()
  .pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$/)
  .message('"username" must be 3-32 characters: letters, digits, "_", "." or "-", starting with a letter or digit');
export const password = Joi.string().min(10).max(256);
export const timestamp = Joi.date().iso();

export const userView = Joi.object({
  id: Joi.string().required(),
  email: Joi.string().required(),
  username: Joi.string().required(),
  createdAt: timestamp.required(),
});

/** Response schemas of the spec's shared resources (validated outside production). */
export const userSummary = Joi.object({
  id: Joi.string().required(),
  username: Joi.string().required(),
  reviews: Joi.number().integer().required(),
  rating: Joi.number().required(),
  score: Joi.number().required(),
  sales: Joi.number().integer().required(),
  purchases: Joi.number().integer().required(),
  joined: timestamp.required(),
  avatar: Joi.string().allow(null).required(),
  cover: Joi.string().allow(null).required(),
  profile: Joi.string().allow(null).required(),
});

const pence = Joi.number().integer().min(0);

export const item = Joi.object({
  urn: Joi.string().required(),
  slug: Joi.string().required(),
  type: Joi.string().required(),
  game: Joi.string().required(),
  title: Joi.string().required(),
  name: Joi.string().required(),
  rarity: Joi.string().allow('').required(),
  number: Joi.string().allow('').required(),
  description: Joi.string().allow('').required(),
  set: Joi.object({
    name: Joi.string().required(),
    urn: Joi.string().required(),
    counts: Joi.object({ printed: Joi.number().integer().allow(null), total: Joi.number().integer().allow(null) }),
    references: Joi.array().items(Joi.string()),
    size: Joi.number().integer().allow(null),
    symbol: Joi.object({ url: Joi.string().allow(null) }),
    released: Joi.string().allow(null),
  }).required(),
  series: Joi.object({ name: Joi.string().required(), urn: Joi.string().required() }).required(),
  images: Joi.array()
    .items(Joi.object({ urn: Joi.string(), orientation: Joi.string(), url: Joi.string(), illustrator: Joi.string().allow('') }))
    .required(),
  alternatives: Joi.array().items(Joi.string()).required(),
  metadata: Joi.array()
    .items(Joi.object({ name: Joi.string(), value: Joi.string().allow(''), detail: Joi.array() }))
    .required(),
  price: pence.allow(null).required(),
  available: Joi.number().integer().min(0).required(),
  quantity: Joi.number().integer().min(0).required(),
  min: Joi.object({ price: pence.allow(null) }).required(),
  max: Joi.object({ price: pence.allow(null) }).required(),
});

export const listing = Joi.object({
  id: Joi.string().required(),
  sellerId: Joi.string().required(),
  condition: Joi.string().required(),
  price: pence.required(),
  language: Joi.string().required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
  item: item.allow(null).required(),
  seller: userSummary.allow(null).required(),
  locked: Joi.boolean().required(),
  valid: Joi.boolean().required(),
  hidden: Joi.boolean().required(),
  quantity: Joi.number().integer().min(0).required(),
  available: Joi.number().integer().min(0).required(),
  variants: Joi.array().required(),
  comment: Joi.string().allow('').required(),
  gradingProvider: Joi.string().allow(null).required(),
  gradingScore: Joi.string().allow(null).required(),
  gradingNumber: Joi.string().allow(null).required(),
  attachments: Joi.array()
    .items(Joi.object({ id: Joi.string(), imageId: Joi.string(), url: Joi.string() }))
    .required(),
  notes: Joi.string().allow(null),
  reference: Joi.string().allow(null),
});

/** An item reference: never ends with `/` (the spec's rule); a bad entry is named in the error. */
export const itemUrn = Joi.string()
  .max(200)
  .pattern(/[^/]$/)
  .message('{{#label}} must not end with "/" (got "{{#value}}")');

/** The spec's Review resource, plus the author (`reviewer`) for reviews received. */
export const review = Joi.object({
  id: Joi.string().required(),
  rating: Joi.number().integer().min(1).max(5).required(),
  revisions: Joi.number().integer().min(0).required(),
  source: Joi.object({ id: Joi.string().required(), type: Joi.string().valid('ORDER').required() }).required(),
  reviewedUser: userSummary.allow(null).required(),
  reviewer: userSummary.allow(null).required(),
  content: Joi.string().allow('', null).required(),
  automatic: Joi.boolean().required(),
  createdAt: timestamp.required(),
});

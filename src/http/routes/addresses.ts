import Joi from '../../joi';
import { MAX_SAVED_ADDRESSES, RETRIEVED_FIELDS } from '../../services/account/addresses';
import { defineRoute } from '../route';
import { documentedAs, idParams, ISO_3166_1, timestamp } from '../schemas';
import type { SavedAddresses } from '../../services/account/addresses';

const country = Joi.string()
  .trim()
  .uppercase()
  .pattern(/^[A-Z]{2}$/, ISO_3166_1);

const fields = {
  type: Joi.string().valid('shipping', 'billing'),
  label: Joi.string().trim().allow('').max(100).description('Recognisable name for the address.'),
  name: Joi.string().trim().allow('').max(200).description('Recipient; the username is used when empty.'),
  line1: Joi.string().trim().min(1).max(200),
  line2: Joi.string().trim().allow('').max(200),
  city: Joi.string().trim().min(1).max(100),
  state: Joi.string().trim().allow('').max(100),
  postalCode: Joi.string().trim().min(1).max(20),
  country,
  lookupId: Joi.string().max(200).allow(null).description('The `id` of an address retrieved with `/user/addresses/lookup/retrieve`.'),
  // Accepted for clients that echo a saved address back; the service decides validation itself.
  isValidated: Joi.boolean().strip().description('Ignored: set by the service from the lookup record.'),
  isPrimary: Joi.boolean(),
};

const createBody = Joi.object({
  ...fields,
  type: fields.type.required(),
  line1: fields.line1.required(),
  city: fields.city.required(),
  state: fields.state.required(),
  postalCode: fields.postalCode.required(),
  country: fields.country.required(),
}).example({
  type: 'shipping',
  label: 'Home',
  name: 'Aino Virtanen',
  line1: 'Mannerheimintie 1',
  line2: '',
  city: 'Helsinki',
  state: '',
  postalCode: '00100',
  country: 'FI',
  lookupId: 'FI|OSM|n3659196730',
  isPrimary: true,
});
// At least one field that changes something: `isValidated` is ignored (stripped), so a body of
// it alone is empty. The document says so with `.or()` over the other fields.
const changingFields = Object.keys(fields).filter((k) => k !== 'isValidated');
const patchBody = documentedAs(Joi.object(fields).min(1), Joi.object(fields).or(...changingFields)).example({
  label: 'Office',
  line2: '4. krs',
  isPrimary: false,
});

const savedAddress = Joi.object({
  id: Joi.string().required(),
  type: Joi.string().valid('shipping', 'billing').required(),
  label: Joi.string().allow('').required(),
  name: Joi.string().allow('').required(),
  line1: Joi.string().required(),
  line2: Joi.string().allow('').required(),
  city: Joi.string().required(),
  state: Joi.string().allow('').required(),
  postalCode: Joi.string().required(),
  country: Joi.string().length(2).required(),
  lookupId: Joi.string().allow(null).required(),
  isValidated: Joi.boolean().required(),
  isPrimary: Joi.boolean().required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
});

const suggestion = Joi.object({
  id: Joi.string().required(),
  type: Joi.string().valid('Address', 'Container', 'Postcode', 'Street', 'BuildingNumber').required(),
  text: Joi.string().allow('').required(),
  highlight: Joi.string().allow('').required(),
  description: Joi.string().allow('').required(),
});

const retrieved = Joi.object(Object.fromEntries(RETRIEVED_FIELDS.map((f) => [f, Joi.string().allow('').required()])));

/** The services these routes use (their feature module's, src/modules). */
export interface AddressRouteServices {
  addresses: SavedAddresses;
}

export const addressRoutes = (s: AddressRouteServices) => [
  defineRoute<'findAddress', 'bearer'>({
    operationId: 'findAddress',
    method: 'post',
    path: '/user/addresses/lookup/find',
    tag: 'Addresses',
    summary: 'Address lookup: suggestions for free text (postcode, street, partial address)',
    description:
      "Repeat with `container` set to a `Container` suggestion's id to drill down, until `Address` suggestions come back; then retrieve one. " +
      '`highlight` lists the index ranges of `text` that matched. Nothing is saved. Every answer carries `Address-Lookup-Coverage`, what the configured provider covers, so a client can say why nothing was found: the embedded provider covers central Helsinki (FI) only; see docs/account.md.',
    auth: 'bearer',
    request: {
      body: Joi.object({
        text: Joi.string().trim().allow('').max(200).required(),
        container: Joi.string().max(200),
        country: Joi.array().items(country).single().max(10).description('ISO 3166-1 alpha-2 codes to search in.'),
      }).example({ text: 'Mannerheimintie 1', country: ['FI'] }),
    },
    responses: {
      200: { description: 'Suggestions; an empty array is valid.', schema: Joi.array().items(suggestion) },
      503: { description: 'The lookup provider failed.' },
    },
    handler: async ({ body }) => ({
      status: 200,
      headers: { 'Address-Lookup-Coverage': s.addresses.lookupCoverage },
      body: await s.addresses.find({ text: body.text, container: body.container, countries: body.country }),
    }),
  }),

  defineRoute<'retrieveAddress', 'bearer'>({
    operationId: 'retrieveAddress',
    method: 'post',
    path: '/user/addresses/lookup/retrieve',
    tag: 'Addresses',
    summary: 'Address lookup: the full address of an `Address` suggestion',
    description:
      'Every field is present; unused ones are empty strings. The retrieve is remembered for the caller so that a saved address with this `lookupId` is marked validated.',
    auth: 'bearer',
    request: { body: Joi.object({ id: Joi.string().min(1).max(200).required() }).example({ id: 'FI|OSM|n3659196730' }) },
    responses: {
      200: { description: 'The retrieved address.', schema: retrieved },
      400: { description: '`lookup-id-invalid`: unknown, unavailable or not an address; search again.' },
      503: { description: 'The lookup provider failed.' },
    },
    handler: async ({ principal, body }) => ({ status: 200, body: await s.addresses.retrieve(principal.userId, body.id) }),
  }),

  defineRoute<'createAddress', 'bearer'>({
    operationId: 'createAddress',
    method: 'post',
    path: '/user/addresses',
    tag: 'Addresses',
    summary: 'Save an address',
    description:
      `At most ${MAX_SAVED_ADDRESSES} addresses per user (further creates: 409 \`address-limit-reached\`). \`isPrimary: true\` replaces the previous primary of the same type. ` +
      '`lookupId` must be an id the caller retrieved through the lookup; `isValidated` is true when the saved fields are the retrieved ones.',
    auth: 'bearer',
    request: { body: createBody },
    responses: {
      201: { description: 'The saved address.', schema: savedAddress },
      400: { description: '`lookup-id-unknown` or invalid fields.' },
      409: { description: '`address-limit-reached`: the caller already stores the most addresses allowed.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.addresses.create(principal.userId, body) }),
  }),

  defineRoute<'listAddresses', 'bearer'>({
    operationId: 'listAddresses',
    method: 'get',
    path: '/user/addresses',
    tag: 'Addresses',
    summary: "The caller's saved addresses, oldest first",
    auth: 'bearer',
    responses: { 200: { description: 'Saved addresses.', schema: Joi.array().items(savedAddress) } },
    handler: async ({ principal }) => ({ status: 200, body: await s.addresses.list(principal.userId) }),
  }),

  defineRoute<'getAddress', 'bearer'>({
    operationId: 'getAddress',
    method: 'get',
    path: '/user/addresses/{id}',
    tag: 'Addresses',
    summary: 'One saved address',
    auth: 'bearer',
    request: { params: idParams },
    responses: { 200: { description: 'The address.', schema: savedAddress }, 404: { description: "Not found or not the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.addresses.get(principal.userId, params.id) }),
  }),

  defineRoute<'updateAddress', 'bearer'>({
    operationId: 'updateAddress',
    method: 'patch',
    path: '/user/addresses/{id}',
    tag: 'Addresses',
    summary: 'Change some fields of a saved address',
    description:
      'Changing the street, city, postcode or country of a looked-up address clears `isValidated` unless they match the retrieve again.',
    auth: 'bearer',
    request: { params: idParams, body: patchBody },
    responses: {
      200: { description: 'The address.', schema: savedAddress },
      400: { description: '`lookup-id-unknown` or invalid fields.' },
      404: { description: "Not found or not the caller's." },
    },
    handler: async ({ principal, params, body }) => ({ status: 200, body: await s.addresses.update(principal.userId, params.id, body) }),
  }),

  defineRoute<'deleteAddress', 'bearer'>({
    operationId: 'deleteAddress',
    method: 'delete',
    path: '/user/addresses/{id}',
    tag: 'Addresses',
    summary: 'Delete a saved address',
    auth: 'bearer',
    request: { params: idParams },
    responses: { 204: { description: 'Deleted.' }, 404: { description: "Not found or not the caller's." } },
    handler: async ({ principal, params }) => {
      await s.addresses.remove(principal.userId, params.id);
      return { status: 204 };
    },
  }),
];

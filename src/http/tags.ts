import { moduleTags } from '../modules';

/**
 * What each tag of the route table groups, shown with the tag in /openapi.json and the docs
 * page: the feature modules' tags (each declared in its module, src/modules) and the tags of the
 * routes app.ts adds itself. A route with a tag not listed here still works; the OpenAPI lint in
 * `npm run lint` then fails until it is described.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  ...moduleTags(),
  System: 'Health, readiness, this document and its docs page.',
  Development: 'Helpers available only when NODE_ENV=development.',
};

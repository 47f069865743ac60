/**
 * What a catalog URN is: segments of URL-unreserved characters joined by `/`, never ending with
 * `/` (`pokemon/base/base1/4`). Keeping to unreserved characters means a URN travels in a path,
 * a query string or a comma-separated header without encoding. The import and every request
 * check URNs against these, so nothing can be stored that a client could not ask for.
 */
export const URN_MAX_LENGTH = 100;
export const URN_SHAPE = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/;
/** Separate from the shape so a trailing `/` (the spec's rule) gets its own message. */
export const NO_TRAILING_SLASH = /[^/]$/;

/** `URN_SHAPE` and `NO_TRAILING_SLASH` in one pattern: one scan of the string instead of two. */
const CATALOG_URN = /^[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*$/;

/**
 * The same rule as a plain test, for lists validated on a hot path (`catalogUrnList`);
 * test/unit/catalog-urn-list.test.ts checks that it agrees with the schemas built from the constants above.
 */
export const isCatalogUrn = (value: unknown): boolean =>
  typeof value === 'string' && value.length <= URN_MAX_LENGTH && CATALOG_URN.test(value);

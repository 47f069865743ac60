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

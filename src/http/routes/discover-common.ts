import Joi from '../../joi';

/** The spec's limit on URNs per bulk lookup. */
export const MAX_BULK_URNS = 200;

/**
 * Public Discover answers may be cached by browsers and CDNs. Prices and stock move, so
 * search and listing answers live briefly; the catalog tree changes only on imports.
 */
export const SEARCH_CACHE = 'public, max-age=30';
export const CATALOG_CACHE = 'public, max-age=300';

/** Page-number paging shared by Discover lists: 1-based, 1 to 50 per page (the spec's cap). */
export const pageQuery = Joi.object({
  page: Joi.number().integer().min(1).max(500).default(1),
  size: Joi.number().integer().min(1).max(50).default(20),
});

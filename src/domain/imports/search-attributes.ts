import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes of `import:{importId}` listing imports: the seller, set at start, and the
 * final status (`COMPLETED`, `FAILED`), set when the import ends.
 */
export const IMPORT_SEARCH_ATTRIBUTES = {
  sellerId: defineSearchAttributeKey('ImportSellerId', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('ImportStatus', SearchAttributeType.KEYWORD),
};

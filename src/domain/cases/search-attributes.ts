import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes of `case:{caseId}` workflows, so operators can list cases by status,
 * reason, seller or order in the Web UI and with `temporal workflow list --query`. Ids and enums
 * only: no personal data. They must exist on the server (`--search-attribute Name=Keyword` on
 * the dev server; `temporal operator search-attribute create` on a cluster), listed with the
 * others in ../search-attributes.ts.
 */
export const CASE_SEARCH_ATTRIBUTES = {
  status: defineSearchAttributeKey('CaseStatus', SearchAttributeType.KEYWORD),
  reason: defineSearchAttributeKey('CaseReason', SearchAttributeType.KEYWORD),
  sellerId: defineSearchAttributeKey('CaseSellerId', SearchAttributeType.KEYWORD),
  orderId: defineSearchAttributeKey('CaseOrderId', SearchAttributeType.KEYWORD),
};

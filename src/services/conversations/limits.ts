/** The conversation area's limits (docs/conversations.md); the route table shows them in OpenAPI. */
export const CONVERSATION_LIMITS = {
  /** Messages one user may send per rolling minute, across all their conversations. */
  messagesPerMinute: 20,
  /** Images on one message. */
  attachmentsPerMessage: 4,
} as const;

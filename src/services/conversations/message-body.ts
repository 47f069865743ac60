import sanitizeHtml from 'sanitize-html';

/** Longest message body accepted (characters, before sanitising). */
export const MAX_MESSAGE_BODY = 4000;

/**
 * Message bodies are plain text, sanitised like review content: every tag is dropped (script
 * and style with their contents), whitespace trimmed. Null when nothing is left, which the
 * caller refuses: a message must say something.
 */
export function sanitizeMessageBody(body: string): string | null {
  const clean = sanitizeHtml(body, { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard' }).trim();
  return clean === '' ? null : clean;
}

import sanitizeHtml from 'sanitize-html';

/** Longest review text accepted (characters, before sanitising). */
export const MAX_REVIEW_CONTENT = 2000;

/**
 * Review text is plain text shown on public profiles: every tag is dropped (script and style
 * with their contents), entities are left as the sanitiser encodes them, whitespace is trimmed.
 * Text that is empty after sanitising is stored as no content at all.
 */
export function sanitizeReviewContent(content: string | undefined): string | null {
  if (content === undefined) return null;
  const clean = sanitizeHtml(content, { allowedTags: [], allowedAttributes: {}, disallowedTagsMode: 'discard' }).trim();
  return clean === '' ? null : clean;
}

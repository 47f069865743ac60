import sanitizeHtml from 'sanitize-html';

/**
 * Case comments are shown to the other party and to operators: markup is removed and the rest
 * is stored HTML-escaped (`&` → `&amp;`), so no view can ever render a party's HTML.
 */
export const plainText = (text: string): string => sanitizeHtml(text, { allowedTags: [], allowedAttributes: {} }).trim();

/** One line of a deck list: a card and how many, or why the line cannot be one. */
export type DeckListEntry =
  | { lineNumber: number; text: string; quantity: number; name: string; set: string | null; error: null }
  | { lineNumber: number; text: string; error: string };

/** `4 Charizard`, `4x Charizard`, `Charizard` (one), `2 Pikachu [Jungle]` (that set's printing). */
const LINE = /^(?:(\d+)\s*[xX]?\s+)?(.+?)(?:\s*\[([^\]]*)\])?$/;

/**
 * Reads a deck list: one card per line, blank lines and `//` or `#` comments skipped. Line
 * numbers count every line of the text from 1, as an editor shows them. A quantity outside
 * 1–99 is an error of its line, never clamped.
 */
export function parseDeckList(text: string): DeckListEntry[] {
  const entries: DeckListEntry[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('//') || line.startsWith('#')) continue;
    const lineNumber = i + 1;
    const match = LINE.exec(line)!;
    const [, count, name, set] = match;
    const quantity = count === undefined ? 1 : Number(count);
    if (!Number.isSafeInteger(quantity) || quantity < 1 || quantity > 99) {
      entries.push({ lineNumber, text: line, error: `quantity ${count} is not between 1 and 99` });
    } else if (set !== undefined && set.trim() === '') {
      entries.push({ lineNumber, text: line, error: 'the set name in brackets is empty' });
    } else if (name!.length > 200) {
      entries.push({ lineNumber, text: line, error: 'the card name is longer than 200 characters' });
    } else {
      entries.push({ lineNumber, text: line, quantity, name: name!.trim(), set: set?.trim() ?? null, error: null });
    }
  }
  return entries;
}

import { asciiJsonBytes } from '../../json-bytes';
import type { ListingView } from './listing-view';

/**
 * A listing view as JSON bytes (`toJsonBytes`) cut around the values of its `item` and `seller`,
 * which are then spliced in from caches of their own (`JsonCache`): the item view and the seller
 * summary are shared by many listings, kept once, and kept fresh by their own rules. JSON.stringify
 * writes an object as `{`, its defined properties in order as `"key":value` joined by commas, and
 * `}`, so the bytes between those values are exactly these.
 */
export function cutAroundItemAndSeller(view: ListingView): [Buffer, Buffer, Buffer] {
  const texts: string[] = [];
  let text = '{';
  let separator = '';
  for (const [key, value] of Object.entries(view)) {
    if (value === undefined) continue;
    text += `${separator}${JSON.stringify(key)}:`;
    separator = ',';
    if (key === 'item' || key === 'seller') {
      texts.push(text);
      text = '';
    } else text += JSON.stringify(value);
  }
  texts.push(`${text}}`);
  if (texts.length !== 3) throw new Error('a listing view without "item" or "seller"');
  return texts.map(asciiJsonBytes) as [Buffer, Buffer, Buffer];
}

/** JSON `null`, for an item or seller a cache has no value for. */
export const NULL_JSON = Buffer.from('null');

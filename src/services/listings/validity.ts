import type { ListingInput } from './listing-input';

/**
 * When a listing is `valid` (buyers can see only valid listings, see `visibility.ts`).
 * The documented rules, in one place:
 * 1. the listed URN is an item of the catalog;
 * 2. the price is above zero;
 * 3. a graded listing names both its grading provider and its score, and grading details
 *    (score or certificate number) never appear without a provider.
 */
export function isValidListing(
  input: Pick<ListingInput, 'price' | 'gradingProvider' | 'gradingScore' | 'gradingNumber'>,
  itemExists: boolean,
): boolean {
  const graded = input.gradingProvider !== null;
  const gradingComplete = graded ? input.gradingScore !== null : input.gradingScore === null && input.gradingNumber === null;
  return itemExists && input.price > 0 && gradingComplete;
}

// Seeded basket-optimizer instances that look like the market (see bench/results/optimizer.md,
// "How instances are generated"). The same seed gives the same instance on every run.
import type { BasketProblem } from '../../src/services/wants/optimizer';
import { zipf } from '../catalog/workload';
import { prng } from '../../test/support/random';

type Rng = () => number;

export interface MarketSize {
  lines: number;
  /** Candidate listings wanted over all lines (after the lines' filters); the draw lands near it. */
  listings: number;
  /** Sellers in the pool; those not shipping abroad drop out of abroad instances. */
  sellers: number;
}

/** Conditions, best first (MT … PO), and what each does to the price. */
const CONDITION_PRICE = [1.15, 1, 0.85, 0.7, 0.6, 0.45, 0.3];
const CONDITION_SHARE = [0.08, 0.4, 0.2, 0.12, 0.1, 0.06, 0.04];
const LANGUAGES = ['en', 'de', 'fr', 'it', 'es', 'ja'] as const;
const LANGUAGE_SHARE = [0.6, 0.12, 0.1, 0.06, 0.06, 0.06];
const LANGUAGE_PRICE: Record<(typeof LANGUAGES)[number], number> = { en: 1, de: 0.85, fr: 0.85, it: 0.8, es: 0.8, ja: 1.1 };
/** Delivery tiers in pence: untracked letters, tracked parcels; dearer abroad. */
const DOMESTIC = { untracked: [90, 110, 125, 150, 175, 200], tracked: [250, 300, 350, 450] };
const ABROAD = { untracked: [220, 260, 300, 350], tracked: [380, 420, 450] };

const pick = <T>(random: Rng, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const weighted = (random: Rng, shares: readonly number[]): number => {
  let x = random() * shares.reduce((a, b) => a + b, 0);
  for (let i = 0; i < shares.length; i += 1) if ((x -= shares[i]!) < 0) return i;
  return shares.length - 1;
};
const gaussian = (random: Rng) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const logNormal = (random: Rng, median: number, sigma: number) => median * Math.exp(sigma * gaussian(random));

const stock = (random: Rng) =>
  random() < 0.6 ? 1 : random() < 0.4 ? 2 : random() < 0.6 ? 3 + Math.floor(random() * 2) : 5 + Math.floor(random() * 8);
const quantity = (random: Rng) => [1, 2, 3, 4][weighted(random, [0.65, 0.12, 0.05, 0.18])]!;

interface Seller {
  id: string;
  shipsAbroad: boolean;
  deliveryPrice: number;
  deliveryOptionId: string;
  /** The seller's prices against the market: some shops are dearer across the board. */
  markup: number;
}

function sellerPool(random: Rng, count: number, abroad: boolean): Seller[] {
  return Array.from({ length: count }, (_, s) => {
    const tracked = random() < 0.25;
    const tiers = abroad ? ABROAD : DOMESTIC;
    return {
      id: `seller-${s}`,
      shipsAbroad: random() < 0.75,
      deliveryPrice: pick(random, tracked ? tiers.tracked : tiers.untracked),
      deliveryOptionId: `seller-${s}-${tracked ? 'tracked' : 'letter'}`,
      markup: logNormal(random, 1, 0.08),
    };
  });
}

/**
 * A wants list against a market: lines draw cards by Zipf popularity over a 30,000-card catalog
 * (a few lines re-ask for an earlier card with other filters, so listings fit two lines); each
 * card has listings in proportion to its popularity (hundreds for the most wanted, none for some
 * rare ones), each listing with a seller (Zipf-weighted: a few big shops), one of 7 conditions,
 * a language, a log-normal price around the card's market price and a small stock. Each line asks
 * for a minimum condition and sometimes a language; its candidates are the listings that pass,
 * from sellers shipping to the buyer (a quarter of buyers are abroad, where a quarter of sellers
 * do not ship and delivery is dearer). With `consolidators`, the three biggest shops also list
 * most wanted cards a little above market: baskets that consolidate there can win.
 */
export function marketInstance(
  seed: number,
  size: MarketSize,
  options: { maxSellers?: number; timeLimitMs: number; consolidators?: boolean },
): BasketProblem {
  const random = prng(seed);
  const abroad = random() < 0.25;
  const sellers = sellerPool(random, size.sellers, abroad);
  const sellerRank = zipf(size.sellers, 1, random);
  const cardRank = zipf(30_000, 0.9, random);

  interface Line {
    id: string;
    card: number;
    quantity: number;
    minCondition: number;
    language: string | null;
  }
  const lines: Line[] = [];
  const asked = new Set<number>();
  // A card once per list, except the deliberate re-asks (same card, other filters).
  const freshCard = () => {
    for (;;) {
      const card = cardRank();
      if (!asked.has(card)) return card;
    }
  };
  for (let l = 0; l < size.lines; l += 1) {
    const again = l > 0 && random() < 0.06;
    const card = again ? lines[Math.floor(random() * l)]!.card : random() < 0.04 ? -1 - l : freshCard();
    asked.add(card);
    lines.push({
      id: `line-${l}`,
      card,
      quantity: quantity(random),
      minCondition: [6, 2, 1][weighted(random, [0.45, 0.3, 0.25])]!,
      language: [null, 'en', pick(random, LANGUAGES)][weighted(random, [0.45, 0.45, 0.1])]!,
    });
  }
  // Listings per card ∝ popularity^0.7, scaled so that candidates land near size.listings: about
  // 55 % of a card's listings pass a line's filters on average, fewer abroad.
  const cards = [...new Set(lines.map((l) => l.card).filter((c) => c >= 0))];
  const weight = (card: number) => Math.pow(card + 1, -0.55);
  const pass = 0.55 * (abroad ? 0.75 : 1);
  const scale = size.listings / pass / lines.reduce((sum, l) => sum + (l.card >= 0 ? weight(l.card) : 0), 0);

  const listings: (BasketProblem['listings'][number] & { card: number; condition: number; language: string })[] = [];
  for (const card of cards) {
    const market = Math.min(20_000, Math.max(5, logNormal(random, 60, 1.1)));
    // Rounded at random (up with the fraction's probability), so that the many rare cards keep
    // their share of listings on average instead of all rounding down to none.
    const expected = scale * weight(card) * (0.6 + 0.8 * random());
    const count = Math.floor(expected) + (random() < expected - Math.floor(expected) ? 1 : 0);
    const add = (seller: Seller, factor: number) => {
      const condition = weighted(random, CONDITION_SHARE);
      const language = LANGUAGES[weighted(random, LANGUAGE_SHARE)]!;
      const unitPrice = Math.max(
        2,
        Math.round(market * CONDITION_PRICE[condition]! * LANGUAGE_PRICE[language] * seller.markup * factor * logNormal(random, 1, 0.2)),
      );
      listings.push({
        id: `listing-${listings.length}`,
        sellerId: seller.id,
        unitPrice,
        available: stock(random),
        card,
        condition,
        language,
      });
    };
    for (let k = 0; k < count; k += 1) add(sellers[sellerRank()]!, 1);
    if (options.consolidators) for (let s = 0; s < 3; s += 1) if (random() < 0.7) add(sellers[s]!, 1.1);
  }

  const shipping = new Set(sellers.filter((s) => !abroad || s.shipsAbroad).map((s) => s.id));
  const byCard = new Map<number, typeof listings>();
  for (const listing of listings) {
    if (!shipping.has(listing.sellerId)) continue;
    const list = byCard.get(listing.card);
    if (list) list.push(listing);
    else byCard.set(listing.card, [listing]);
  }
  const problemLines = lines.map((line) => ({
    id: line.id,
    quantity: line.quantity,
    listingIds: (byCard.get(line.card) ?? [])
      .filter((j) => j.condition <= line.minCondition && (line.language === null || j.language === line.language))
      .map((j) => j.id),
  }));
  // Only what the caller would load: listings that fit some line, and their sellers.
  const used = new Set(problemLines.flatMap((l) => l.listingIds));
  const problemListings = listings
    .filter((j) => used.has(j.id))
    .map(({ id, sellerId, unitPrice, available }) => ({ id, sellerId, unitPrice, available }));
  const usedSellers = new Set(problemListings.map((j) => j.sellerId));
  return {
    lines: problemLines,
    listings: problemListings,
    sellers: sellers
      .filter((s) => usedSellers.has(s.id))
      .map(({ id, deliveryOptionId, deliveryPrice }) => ({ id, deliveryOptionId, deliveryPrice })),
    maxSellers: options.maxSellers,
    timeLimitMs: options.timeLimitMs,
  };
}

/**
 * Set cover in basket form: 200 one-copy lines over as many cards, many small sellers each
 * holding a few of them (Zipf-weighted, so popular cards have many holders and rare ones few),
 * prices close to each card's market price, so that delivery decides and choosing the sellers
 * is the whole difficulty.
 */
export function setCoverInstance(
  seed: number,
  options: { lines: number; sellers: number; timeLimitMs: number; maxSellers?: number },
): BasketProblem {
  const random = prng(seed);
  const cardRank = zipf(options.lines, 0.6, random);
  const market = Array.from({ length: options.lines }, () => Math.max(5, logNormal(random, 50, 0.8)));
  const listings: BasketProblem['listings'] = [];
  const holders: string[][] = Array.from({ length: options.lines }, () => []);
  const sellers: BasketProblem['sellers'] = [];
  const addListing = (seller: string, card: number) => {
    const id = `listing-${listings.length}`;
    listings.push({
      id,
      sellerId: seller,
      unitPrice: Math.max(2, Math.round(market[card]! * logNormal(random, 1, 0.15))),
      available: random() < 0.8 ? 1 : 2,
    });
    holders[card]!.push(id);
  };
  for (let s = 0; s < options.sellers; s += 1) {
    const id = `seller-${s}`;
    const tracked = random() < 0.25;
    sellers.push({ id, deliveryOptionId: `${id}-post`, deliveryPrice: pick(random, tracked ? DOMESTIC.tracked : DOMESTIC.untracked) });
    const cards = new Set<number>();
    const holding = 3 + Math.floor(random() * 8);
    while (cards.size < holding) cards.add(cardRank());
    for (const card of cards) addListing(id, card);
  }
  // Every card has at least two holders, so every line can be filled and no seller is forced.
  holders.forEach((h, card) => {
    while (h.length < 2) addListing(pick(random, sellers).id, card);
  });
  return {
    lines: holders.map((listingIds, card) => ({ id: `line-${card}`, quantity: 1, listingIds })),
    listings,
    sellers,
    maxSellers: options.maxSellers,
    timeLimitMs: options.timeLimitMs,
  };
}

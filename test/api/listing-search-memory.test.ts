import { newId } from '../../src/ids';
import { toJsonBytes } from '../../src/json-bytes';
import type { ListingQuery, ListingSort } from '../../src/services/search/listing-query';
import { searchListings } from '../../src/services/search/listing-search';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { prng } from '../support/random';

// Listing search as served answers each item from its live listings held in memory
// (src/services/search/item-listings.ts). Here its answers are compared, byte for byte, with the
// one SQL query it stands for (`searchListings`), over random filters, sorts and pages, before
// and after the listings change.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { DISCOVER_CACHE_MS: '30000' } });
});
afterAll(() => api.close());

const CONDITIONS = ['MINT', 'NEAR_MINT', 'EXCELLENT', 'GOOD', 'PLAYED'];
const LANGUAGES = ['en', 'ja', 'de'];
const SORTS: ListingSort[] = ['price', '-price', 'newest'];

async function market() {
  const db = api.database.db;
  const { items } = await seedCatalog(db, { names: ['Lugia'] });
  const urn = items[0]!.urn;
  const sellers = [await registerSeller(api), await registerSeller(api)];
  const random = prng(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const ids: string[] = [];
  for (let n = 0; n < 40; n += 1) {
    const listing = await insertListing(db, {
      sellerId: pick(sellers).id,
      itemUrn: urn,
      // Few distinct prices: ties are ordered by id.
      price: 100 * (1 + Math.floor(random() * 8)),
      condition: pick(CONDITIONS),
      language: pick(LANGUAGES),
      quantity: 1 + Math.floor(random() * 3),
      ...(random() < 0.3 ? { gradingProvider: 'PSA', gradingScore: '9', gradingNumber: `G${n}` } : {}),
      comment: `listing ${n} é`,
    });
    ids.push(listing.id);
  }
  // Same creation time for a few: "newest" then orders by id, to the microsecond.
  await db.query(`UPDATE listings SET created_at = '2026-01-01T00:00:00.000001Z' WHERE id = ANY($1)`, [ids.slice(0, 6)]);
  await db.query(`UPDATE listings SET created_at = '2026-01-01T00:00:00.000002Z' WHERE id = ANY($1)`, [ids.slice(6, 9)]);
  // Attachments are read with the listings in memory and by a query of their own in SQL: none,
  // one or three per listing, inserted out of position order.
  for (const [n, id] of ids.slice(0, 12).entries()) {
    for (let k = n % 3 === 2 ? 3 : n % 3; k > 0; k -= 1) {
      await db.query(`INSERT INTO listing_attachments (id, listing_id, image_id, url, position) VALUES ($1, $2, $3, $4, $5)`, [
        newId(),
        id,
        `img-${n}-${k}`,
        `https://img.test/${n}/${k}.jpg`,
        k,
      ]);
    }
  }
  return { urn, sellers, ids };
}

function randomQuery(random: () => number, urn: string, sellerIds: string[]): ListingQuery {
  const some = (xs: string[]) => xs.filter(() => random() < 0.4);
  const filters: ListingQuery['filters'] = {};
  if (random() < 0.4) filters.condition = some(CONDITIONS);
  if (random() < 0.3) filters.language = some(LANGUAGES);
  if (random() < 0.3) filters.priceMin = 100 * Math.floor(random() * 5);
  if (random() < 0.3) filters.priceMax = (filters.priceMin ?? 0) + 100 * Math.floor(random() * 6);
  if (random() < 0.2) filters.graded = random() < 0.5;
  if (random() < 0.2) {
    const id = sellerIds[Math.floor(random() * sellerIds.length)]!;
    // PostgreSQL reads a uuid in any case; so must the filter.
    filters.sellerId = random() < 0.5 ? id : id.toUpperCase();
  }
  return {
    urn,
    filters,
    sort: SORTS[Math.floor(random() * SORTS.length)]!,
    from: random() < 0.7 ? 0 : Math.floor(random() * 45),
    size: 1 + Math.floor(random() * 25),
  };
}

/** Every query's answer as served equals the SQL query's, as JSON text. */
async function expectSameAnswers(queries: ListingQuery[]): Promise<number> {
  let nonEmpty = 0;
  for (const query of queries) {
    const served = await api.http.post('/listings/item').send(query).expect(200);
    const expected = toJsonBytes(await searchListings(api.database.db, query)).toString('latin1');
    expect({ query, body: served.text }).toEqual({ query, body: expected });
    if (served.body.hits.length > 0) nonEmpty += 1;
  }
  return nonEmpty;
}

describe('listing search from memory', () => {
  it('answers random filters, sorts and pages exactly as the SQL query does, before and after changes', async () => {
    const { urn, sellers, ids } = await market();
    const random = prng(11);
    const queries = Array.from({ length: 150 }, () =>
      randomQuery(
        random,
        urn,
        sellers.map((s) => s.id),
      ),
    );
    // The comparison means something only if many answers have hits.
    expect(await expectSameAnswers(queries)).toBeGreaterThan(75);
    // …and only if hits carry attachments, in position order.
    const everything = await api.http.post('/listings/item').send({ urn, size: 50 }).expect(200);
    const threeAttachments = everything.body.hits.find((hit: { id: string }) => hit.id === ids[2]);
    expect(threeAttachments.attachments.map((a: { imageId: string }) => a.imageId)).toEqual(['img-2-1', 'img-2-2', 'img-2-3']);

    const db = api.database.db;
    await db.query('UPDATE listings SET price = 150 WHERE id = $1', [ids[10]]);
    await db.query('UPDATE listings SET hidden = true WHERE id = $1', [ids[11]]);
    await db.query('UPDATE listings SET reserved = quantity WHERE id = $1', [ids[12]]);
    await db.query('UPDATE listings SET deleted_at = now() WHERE id = $1', [ids[13]]);
    await db.query('UPDATE seller_accounts SET vacation = true WHERE user_id = $1', [sellers[1]!.id]);
    // Notifications arrive after the commits: wait until the served total follows them.
    const total = async () => (await api.http.post('/listings/item').send({ urn, size: 1 }).expect(200)).body.total;
    const live = Number(
      (
        await db.query(
          `SELECT count(*) FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
        WHERE l.item_urn = $1 AND l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved
          AND sa.status = 'ACTIVE' AND NOT sa.vacation`,
          [urn],
        )
      )[0].count,
    );
    const deadline = Date.now() + 5000;
    while ((await total()) !== live && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await total()).toBe(live);
    expect(await expectSameAnswers(queries)).toBeGreaterThan(40);
  });

  it('answers by slug as by URN, and an unknown item with nothing', async () => {
    const { urn } = await market();
    const [{ slug }] = await api.database.db.query('SELECT slug FROM catalog_items WHERE urn = $1', [urn]);
    const byUrn = await api.http.post('/listings/item').send({ urn, sort: 'newest' }).expect(200);
    const bySlug = await api.http.post('/listings/item').send({ slug, sort: 'newest' }).expect(200);
    expect(bySlug.text).toBe(byUrn.text);
    expect(byUrn.body.total).toBeGreaterThan(0);
    const unknown = await api.http.post('/listings/item').send({ slug: 'no-such-item' }).expect(200);
    expect(unknown.body).toEqual({ total: 0, hits: [] });
  });
});

import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { alertDigestStart } from '../../src/modules/alerts';
import { queueAlertDigest, requestAlertDigests } from '../../src/services/alerts/digest';
import { AlertMatcher } from '../../src/services/alerts/matcher';
import { emitEvents } from '../../src/services/events/outbox';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog, type FixtureItem } from '../support/fixtures';

let api: TestApi;
let db: DataSource;
beforeAll(async () => {
  api = await startTestApi();
  db = api.database.db;
});
afterAll(() => api.close());

/** Writes a notification as the matcher would; returns its id (ids are time-ordered, so later ones sort first). */
async function insertNotification(userId: string, listingId: string, urn: string, price: number): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO notifications (id, user_id, kind, listing_id, item_urn, price, previous_price, dedupe_key)
     VALUES ($1, $2, 'PRICE_DROP', $3, $4, $5, $6, $7)`,
    [id, userId, listingId, urn, price, price + 100, `test:${id}`],
  );
  return id;
}

const notificationsOf = (user: TestUser, query = '') => api.http.get(`/user/notifications${query}`).set(user.bearer);
const unreadOf = async (user: TestUser) => (await api.http.get('/user/notifications/unread').set(user.bearer).expect(200)).body.unread;

describe('notifications', () => {
  it('page newest first by cursor, count the unread, and are marked read one by one or all at once', async () => {
    const user = await registerUser(api);
    const other = await registerUser(api);
    const { items } = await seedCatalog(db, { names: ['Charizard'] });
    const seller = await registerSeller(api);
    const listing = await insertListing(db, { sellerId: seller.id, itemUrn: items[0]!.urn, price: 900 });
    const ids: string[] = [];
    // UUID v7 orders by the millisecond: a pause between them makes the order of creation the order of ids.
    for (let i = 0; i < 5; i++) {
      ids.push(await insertNotification(user.id, listing.id, items[0]!.urn, 1000 - i));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await insertNotification(other.id, listing.id, items[0]!.urn, 500);

    const first = await notificationsOf(user, '?size=2').expect(200);
    expect(first.body.items.map((n: { id: string }) => n.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.items[0]).toEqual({
      id: ids[4],
      kind: 'PRICE_DROP',
      alertId: null,
      message: 'Charizard on your watchlist dropped from £10.96 to £9.96.',
      listing: { id: listing.id, urn: items[0]!.urn, name: 'Charizard', price: 996, previousPrice: 1096 },
      link: `/listings/${listing.id}`,
      createdAt: expect.any(String),
      readAt: null,
    });
    const second = await notificationsOf(user, `?size=2&cursor=${first.body.nextCursor}`).expect(200);
    expect(second.body.items.map((n: { id: string }) => n.id)).toEqual([ids[2], ids[1]]);
    const last = await notificationsOf(user, `?size=2&cursor=${second.body.nextCursor}`).expect(200);
    expect(last.body).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    expect(second.body.nextCursor).toBe(ids[1]);

    // Another user's notification is no cursor of this list, nor this user's to mark.
    const [othersId] = (await notificationsOf(other).expect(200)).body.items.map((n: { id: string }) => n.id);
    expect((await notificationsOf(user, `?cursor=${othersId}`).expect(400)).body.type).toBe('/problems/invalid-cursor');
    await api.http.post(`/user/notifications/${othersId}/read`).set(user.bearer).expect(404);

    expect(await unreadOf(user)).toBe(5);
    const read = await api.http.post(`/user/notifications/${ids[1]}/read`).set(user.bearer).expect(200);
    expect(read.body).toMatchObject({ id: ids[1], readAt: expect.any(String) });
    const again = await api.http.post(`/user/notifications/${ids[1]}/read`).set(user.bearer).expect(200);
    expect(again.body.readAt).toBe(read.body.readAt);
    expect(await unreadOf(user)).toBe(4);
    const unreadOnly = await notificationsOf(user, '?unread=true&size=50').expect(200);
    expect(unreadOnly.body.items.map((n: { id: string }) => n.id)).toEqual([ids[4], ids[3], ids[2], ids[0]]);

    expect((await api.http.post('/user/notifications/read').set(user.bearer).expect(200)).body).toEqual({ marked: 4 });
    expect(await unreadOf(user)).toBe(0);
    expect(await unreadOf(other)).toBe(1);
    await api.http.get('/user/notifications').expect(401);
    await api.http.get('/user/notifications/unread').expect(401);
  });

  it('link to the listing, which answers while it is live', async () => {
    const { items } = await seedCatalog(db, { names: ['Blastoise'] });
    const seller = await registerSeller(api);
    const listing = await insertListing(db, { sellerId: seller.id, itemUrn: items[0]!.urn, price: 700, quantity: 2 });
    const found = await api.http.get(`/listings/${listing.id}`).expect(200);
    expect(found.body).toMatchObject({ id: listing.id, price: 700, sellerId: seller.id });
    expect(found.body).not.toHaveProperty('notes');
    await db.query(`UPDATE listings SET hidden = true WHERE id = $1`, [listing.id]);
    await api.http.get(`/listings/${listing.id}`).expect(404);
    await api.http.get(`/listings/${newId()}`).expect(404);
  });
});

/** Runs the background matcher as the worker does (src/modules/alerts.ts), until every event is read. */
const match = () =>
  new AlertMatcher(db, {
    batchSize: 100,
    onNotified: (tx, notified) => requestAlertDigests(tx, notified, 900_000, alertDigestStart),
  }).drain();

const listingBody = (urn: string, over: Record<string, unknown> = {}) => ({
  urn,
  condition: 'NEAR_MINT',
  language: 'en',
  price: 1000,
  quantity: 3,
  ...over,
});

async function list(seller: TestUser, urn: string, over: Record<string, unknown> = {}): Promise<string> {
  return (await api.http.post('/seller/listings').set(seller.bearer).send(listingBody(urn, over)).expect(201)).body.id;
}

const reprice = (seller: TestUser, id: string, urn: string, over: Record<string, unknown>) =>
  api.http.put(`/seller/listings/${id}`).set(seller.bearer).send(listingBody(urn, over)).expect(200);

const alert = async (user: TestUser, body: object): Promise<string> =>
  (await api.http.post('/user/price-alerts').set(user.bearer).send(body).expect(201)).body.id;

type Told = { kind: string; alertId: string | null; listing: { id: string; price: number; previousPrice: number | null } };
const told = async (user: TestUser): Promise<Told[]> => (await notificationsOf(user, '?size=50').expect(200)).body.items.reverse();

describe('price alerts', () => {
  let items: FixtureItem[];
  let seller: TestUser;
  beforeAll(async () => {
    ({ items } = await seedCatalog(db, { names: ['Charizard', 'Charizard', 'Pikachu'] }));
    seller = await registerSeller(api);
  });

  it('are created on an item or a card, read, listed and deleted; unknown catalog names are refused', async () => {
    const user = await registerUser(api);
    const created = await api.http
      .post('/user/price-alerts')
      .set(user.bearer)
      .send({ card: { game: 'pokemon', name: 'CHARIZARD' }, maxPrice: 2500, minCondition: 'GOOD', languages: ['EN'] })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      urn: null,
      card: { game: 'pokemon', name: 'Charizard' },
      maxPrice: 2500,
      minCondition: 'GOOD',
      languages: ['en'],
      variants: null,
      createdAt: expect.any(String),
    });
    const byItem = await alert(user, { urn: items[2]!.urn, maxPrice: 100 });
    expect((await api.http.get('/user/price-alerts').set(user.bearer).expect(200)).body.alerts.map((a: { id: string }) => a.id)).toEqual([
      created.body.id,
      byItem,
    ]);
    expect((await api.http.get(`/user/price-alerts/${byItem}`).set(user.bearer).expect(200)).body).toMatchObject({ urn: items[2]!.urn });
    const other = await registerUser(api);
    await api.http.get(`/user/price-alerts/${byItem}`).set(other.bearer).expect(404);
    await api.http.delete(`/user/price-alerts/${byItem}`).set(other.bearer).expect(404);
    await api.http.delete(`/user/price-alerts/${byItem}`).set(user.bearer).expect(204);
    await api.http.get(`/user/price-alerts/${byItem}`).set(user.bearer).expect(404);

    const unknown = await api.http
      .post('/user/price-alerts')
      .set(user.bearer)
      .send({ card: { game: 'pokemon', name: 'Nope' }, maxPrice: 1 })
      .expect(400);
    expect(unknown.body).toMatchObject({ type: '/problems/wants-card-unknown', errors: [{ field: 'card.name' }] });
    for (const body of [
      { urn: items[0]!.urn },
      { urn: items[0]!.urn, maxPrice: 0 },
      { maxPrice: 5 },
      { urn: items[0]!.urn, card: { game: 'pokemon', name: 'Pikachu' }, maxPrice: 5 },
    ]) {
      expect((await api.http.post('/user/price-alerts').set(user.bearer).send(body).expect(400)).body.type).toBe(
        '/problems/validation-failed',
      );
    }
  });

  it('fire at or below the threshold, for every printing of a card alert, only on listings that meet the condition, language and variants', async () => {
    const user = await registerUser(api);
    const byItem = await alert(user, { urn: items[0]!.urn, maxPrice: 1000 });
    const byCard = await alert(user, {
      card: { game: 'pokemon', name: 'charizard' },
      maxPrice: 800,
      minCondition: 'EXCELLENT',
      languages: ['en', 'de'],
      variants: [{ name: 'finish', value: 'holo' }],
    });
    const holo = [
      { name: 'finish', value: 'holo' },
      { name: 'edition', value: '1st' },
    ];

    const atThreshold = await list(seller, items[0]!.urn, { price: 1000 });
    await list(seller, items[0]!.urn, { price: 1001 }); // over the threshold
    const otherPrinting = await list(seller, items[1]!.urn, { price: 800, variants: holo, language: 'de' });
    await list(seller, items[1]!.urn, { price: 700, variants: holo, condition: 'GOOD' }); // worse than EXCELLENT
    await list(seller, items[1]!.urn, { price: 700, variants: holo, language: 'fr' }); // not a wanted language
    await list(seller, items[1]!.urn, { price: 700, variants: [{ name: 'finish', value: 'reverse holo' }] }); // not the variant
    await list(seller, items[2]!.urn, { price: 1 }); // another card
    await match();

    // One batch: notifications written within one millisecond have no order among them.
    const fired = await told(user);
    expect(fired).toHaveLength(2);
    expect(fired).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'PRICE_ALERT',
          alertId: byItem,
          listing: expect.objectContaining({ id: atThreshold, price: 1000 }),
        }),
        expect.objectContaining({
          kind: 'PRICE_ALERT',
          alertId: byCard,
          listing: expect.objectContaining({ id: otherPrinting, price: 800 }),
        }),
      ]),
    );
    const first = fired.find((n) => n.alertId === byItem);
    expect(first).toMatchObject({
      message: "Charizard is listed at £10.00, within your alert's £10.00.",
      link: `/listings/${atThreshold}`,
    });
    // The seller is never told of their own listing.
    await alert(seller, { urn: items[2]!.urn, maxPrice: 5 });
    await list(seller, items[2]!.urn, { price: 2 });
    await match();
    expect(await unreadOf(seller)).toBe(0);
  });

  it('fire once per listing and price: again on a drop to a new low, not on a rise, a restock or a repeat', async () => {
    const user = await registerUser(api);
    const alertId = await alert(user, { urn: items[2]!.urn, maxPrice: 500 });
    const id = await list(seller, items[2]!.urn, { price: 600 }); // over: nothing yet
    await match();
    expect(await told(user)).toEqual([]);
    await reprice(seller, id, items[2]!.urn, { price: 450 }); // drops under the threshold
    await match();
    await reprice(seller, id, items[2]!.urn, { price: 450, quantity: 9 }); // restock at the same price
    await reprice(seller, id, items[2]!.urn, { price: 480 }); // a rise
    await match();
    expect((await told(user)).map((n) => n.listing.price)).toEqual([450]);
    await reprice(seller, id, items[2]!.urn, { price: 400 }); // a new low
    await reprice(seller, id, items[2]!.urn, { price: 300 }); // two changes in one batch: told of the latest
    await match();
    expect((await told(user)).map((n) => [n.alertId, n.listing.price])).toEqual([
      [alertId, 450],
      [alertId, 300],
    ]);
    // Matching the same events again writes nothing twice.
    await db.query(`UPDATE outbox_events SET alerts_matched_at = NULL WHERE data->>'listingId' = $1`, [id]);
    await match();
    expect(await told(user)).toHaveLength(2);
    // A deleted alert's notifications stay, no longer naming it.
    await api.http.delete(`/user/price-alerts/${alertId}`).set(user.bearer).expect(204);
    expect((await told(user)).map((n) => [n.alertId, n.listing.price])).toEqual([
      [null, 450],
      [null, 300],
    ]);
  });
});

describe('the watchlist', () => {
  let items: FixtureItem[];
  let seller: TestUser;
  beforeAll(async () => {
    ({ items } = await seedCatalog(db, { names: ['Mewtwo'] }));
    seller = await registerSeller(api);
  });

  it('watches live listings of others, once each, and lists them with their state', async () => {
    const user = await registerUser(api);
    const id = await list(seller, items[0]!.urn, { price: 900 });
    const watched = await api.http.post('/user/watchlist').set(user.bearer).send({ listingId: id }).expect(201);
    expect(watched.body).toEqual({
      listingId: id,
      urn: items[0]!.urn,
      name: 'Mewtwo',
      price: 900,
      available: 3,
      live: true,
      createdAt: expect.any(String),
    });
    await api.http.post('/user/watchlist').set(user.bearer).send({ listingId: id }).expect(200);
    expect((await api.http.get('/user/watchlist').set(user.bearer).expect(200)).body.listings).toEqual([watched.body]);
    const own = await api.http.post('/user/watchlist').set(seller.bearer).send({ listingId: id }).expect(409);
    expect(own.body.type).toBe('/problems/own-listing');
    await api.http.post('/user/watchlist').set(user.bearer).send({ listingId: newId() }).expect(404);
    await api.http.delete(`/user/watchlist/${id}`).set(user.bearer).expect(204);
    await api.http.delete(`/user/watchlist/${id}`).set(user.bearer).expect(404);
    expect((await api.http.get('/user/watchlist').set(user.bearer).expect(200)).body.listings).toEqual([]);
  });

  it('tells of a price drop, of one left and of the listing gone, once each', async () => {
    const user = await registerUser(api);
    const id = await list(seller, items[0]!.urn, { price: 900, quantity: 3 });
    await api.http.post('/user/watchlist').set(user.bearer).send({ listingId: id }).expect(201);
    await match();
    expect(await told(user)).toEqual([]);

    await reprice(seller, id, items[0]!.urn, { price: 950, quantity: 3 }); // a rise: nothing
    await match();
    await reprice(seller, id, items[0]!.urn, { price: 700, quantity: 3 });
    await match();
    await reprice(seller, id, items[0]!.urn, { price: 700, quantity: 1 });
    await match();
    await reprice(seller, id, items[0]!.urn, { price: 700, quantity: 1, comment: 'still here' }); // no change that counts
    await match();
    await api.http.delete(`/seller/listings/${id}`).set(seller.bearer).expect(204);
    await match();
    expect((await told(user)).map((n) => [n.kind, n.listing.price, n.listing.previousPrice])).toEqual([
      ['PRICE_DROP', 700, 950],
      ['ONE_LEFT', 700, null],
      ['GONE', 700, null],
    ]);
    expect((await told(user)).map((n) => (n as Told & { message: string }).message)).toEqual([
      'Mewtwo on your watchlist dropped from £9.50 to £7.00.',
      'Only one Mewtwo on your watchlist is left, at £7.00.',
      'Mewtwo on your watchlist is no longer for sale.',
    ]);
    expect((await api.http.get('/user/watchlist').set(user.bearer).expect(200)).body.listings).toMatchObject([
      { listingId: id, live: false },
    ]);
  });

  it('tells of a listing sold out by an order', async () => {
    const user = await registerUser(api);
    const id = await list(seller, items[0]!.urn, { price: 500, quantity: 1 });
    await api.http.post('/user/watchlist').set(user.bearer).send({ listingId: id }).expect(201);
    // What a paid checkout does to the listing, and the event it writes in the same transaction.
    await db.transaction(async (tx) => {
      await tx.query(`UPDATE listings SET quantity = 0 WHERE id = $1`, [id]);
      await emitEvents(tx, 'ORDER_CREATED', [
        {
          sellerId: seller.id,
          createdAt: new Date().toISOString(),
          orderId: newId(),
          listings: [{ urn: items[0]!.urn, listingId: id, quantity: 1, price: 500 }],
        },
      ]);
    });
    await match();
    expect((await told(user)).map((n) => n.kind)).toEqual(['GONE']);
  });
});

describe('the e-mail digest', () => {
  let items: FixtureItem[];
  let seller: TestUser;
  beforeAll(async () => {
    ({ items } = await seedCatalog(db, { names: ['Gengar'] }));
    seller = await registerSeller(api);
  });

  const digestStarts = async (userId: string) =>
    (
      await db.query(`SELECT workflow_type, request_key, args, options FROM workflow_starts WHERE workflow_id = $1 ORDER BY id`, [
        `alert-digest:${userId}`,
      ])
    ).map((r: { workflow_type: string; args: unknown[]; options: { signal?: { name: string }; reusePolicy: string } }) => ({
      type: r.workflow_type,
      args: r.args,
      signal: r.options.signal?.name,
      reusePolicy: r.options.reusePolicy,
    }));
  const emailsTo = (address: string) =>
    db.query(
      `SELECT id, subject, body_text AS text FROM email_messages WHERE kind = 'alert-digest' AND to_address = $1 ORDER BY created_at`,
      [address],
    );

  it('is signalled through the start outbox, and e-mails everything still unread once per round', async () => {
    const user = await registerUser(api);
    await alert(user, { urn: items[0]!.urn, maxPrice: 2000 });
    const first = await list(seller, items[0]!.urn, { price: 1500 });
    await match();
    expect(await digestStarts(user.id)).toEqual([
      {
        type: 'alertDigestWorkflow',
        args: [{ userId: user.id, intervalMs: 900_000 }],
        signal: 'alertsNotified',
        reusePolicy: 'ALLOW_DUPLICATE',
      },
    ]);

    const emailId = await queueAlertDigest(db, { userId: user.id, key: 'round-1' });
    expect(emailId).toEqual(expect.any(String));
    // A retried round answers the same e-mail; a round with nothing new sends none.
    expect(await queueAlertDigest(db, { userId: user.id, key: 'round-1' })).toBe(emailId);
    expect(await queueAlertDigest(db, { userId: user.id, key: 'round-2' })).toBeNull();

    await list(seller, items[0]!.urn, { price: 1200 });
    await match();
    expect(await digestStarts(user.id)).toHaveLength(2);
    const secondId = await queueAlertDigest(db, { userId: user.id, key: 'round-3' });
    const emails = await emailsTo(user.email);
    expect(emails.map((e: { id: string }) => e.id)).toEqual([emailId, secondId]);
    // The second covers both unread notifications, the newest first.
    expect(emails[1].subject).toBe("2 unread alerts: Gengar is listed at £12.00, within your alert's £20.00.");
    expect(emails[1].text).toContain("- Gengar is listed at £12.00, within your alert's £20.00.");
    expect(emails[1].text).toContain(`- Gengar is listed at £15.00, within your alert's £20.00. (listing ${first})`);

    // Read in the app meanwhile: the next round has nothing to send.
    await api.http.post('/user/notifications/read').set(user.bearer).expect(200);
    await list(seller, items[0]!.urn, { price: 1100 });
    await match();
    await api.http.post('/user/notifications/read').set(user.bearer).expect(200);
    expect(await queueAlertDigest(db, { userId: user.id, key: 'round-4' })).toBeNull();
  });

  it('never e-mails a user who turned alert e-mails off, who still sees the notifications in the app', async () => {
    const user = await registerUser(api);
    expect((await api.http.get('/user/account').set(user.bearer).expect(200)).body.alertEmails).toBe(true);
    const patched = await api.http.patch('/user/account').set(user.bearer).send({ alertEmails: false }).expect(200);
    expect(patched.body.alertEmails).toBe(false);
    await alert(user, { urn: items[0]!.urn, maxPrice: 900 });
    await list(seller, items[0]!.urn, { price: 800 });
    await match();
    expect(await unreadOf(user)).toBe(1);
    expect(await digestStarts(user.id)).toEqual([]);
    // Turned off after a digest was already under way: its round sends nothing either.
    expect(await queueAlertDigest(db, { userId: user.id, key: 'off-1' })).toBeNull();
    expect(await emailsTo(user.email)).toEqual([]);
  });
});

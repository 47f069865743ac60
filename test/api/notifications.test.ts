import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';

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
    for (let i = 0; i < 5; i++) ids.push(await insertNotification(user.id, listing.id, items[0]!.urn, 1000 - i));
    await insertNotification(other.id, listing.id, items[0]!.urn, 500);

    const first = await notificationsOf(user, '?size=2').expect(200);
    expect(first.body.notifications.map((n: { id: string }) => n.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.notifications[0]).toEqual({
      id: ids[4],
      kind: 'PRICE_DROP',
      alertId: null,
      message: 'Charizard on your watchlist dropped from £10.96 to £9.96.',
      listing: { id: listing.id, urn: items[0]!.urn, name: 'Charizard', price: 996, previousPrice: 1096 },
      link: `/listings/${listing.id}`,
      createdAt: expect.any(String),
      readAt: null,
    });
    const second = await notificationsOf(user, `?size=2&cursor=${first.body.cursor}`).expect(200);
    expect(second.body.notifications.map((n: { id: string }) => n.id)).toEqual([ids[2], ids[1]]);
    const last = await notificationsOf(user, `?size=2&cursor=${second.body.cursor}`).expect(200);
    expect(last.body).toMatchObject({ notifications: [{ id: ids[0] }], cursor: null });

    // Another user's notification is no cursor of this list, nor this user's to mark.
    const [othersId] = (await notificationsOf(other).expect(200)).body.notifications.map((n: { id: string }) => n.id);
    expect((await notificationsOf(user, `?cursor=${othersId}`).expect(400)).body.type).toBe('/problems/invalid-cursor');
    await api.http.post(`/user/notifications/${othersId}/read`).set(user.bearer).expect(404);

    expect(await unreadOf(user)).toBe(5);
    const read = await api.http.post(`/user/notifications/${ids[1]}/read`).set(user.bearer).expect(200);
    expect(read.body).toMatchObject({ id: ids[1], readAt: expect.any(String) });
    const again = await api.http.post(`/user/notifications/${ids[1]}/read`).set(user.bearer).expect(200);
    expect(again.body.readAt).toBe(read.body.readAt);
    expect(await unreadOf(user)).toBe(4);
    const unreadOnly = await notificationsOf(user, '?unread=true&size=50').expect(200);
    expect(unreadOnly.body.notifications.map((n: { id: string }) => n.id)).toEqual([ids[4], ids[3], ids[2], ids[0]]);

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

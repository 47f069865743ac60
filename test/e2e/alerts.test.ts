import { registerSeller, registerUser, type TestUser } from '../support/api';
import { seedCatalog } from '../support/fixtures';
import { startStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.stop());

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('price alerts (API → outbox → matcher in the worker → digest workflow → e-mail outbox)', () => {
  it('tells every user whose alert a new listing fits, and e-mails one digest each to those who want e-mails', async () => {
    const { api } = stack;
    const db = api.database.db;
    const { items } = await seedCatalog(db, { names: ['Lugia'] });
    const users: TestUser[] = [];
    for (let i = 0; i < 12; i++) users.push(await registerUser(api, 'watcher'));
    const optedOut = users.slice(0, 3);
    for (const user of optedOut) await api.http.patch('/user/account').set(user.bearer).send({ alertEmails: false }).expect(200);
    for (const user of users) {
      await api.http
        .post('/user/price-alerts')
        .set(user.bearer)
        .send({ card: { game: 'pokemon', name: 'Lugia' }, maxPrice: 5000 })
        .expect(201);
    }
    const seller = await registerSeller(api);
    const listing = { urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: 4000, quantity: 2 };
    const created = await api.http.post('/seller/listings').set(seller.bearer).send(listing).expect(201);

    const unread = () => Promise.all(users.map(async (u) => (await api.http.get('/user/notifications/unread').set(u.bearer)).body.unread));
    expect(await eventually(unread, (counts) => counts.every((c) => c === 1))).toEqual(users.map(() => 1));
    const digests = () =>
      db.query(`SELECT to_address FROM email_messages WHERE kind = 'alert-digest' AND to_address = ANY($1)`, [users.map((u) => u.email)]);
    const sent: Array<{ to_address: string }> = await eventually(digests, (rows) => rows.length >= users.length - optedOut.length);
    expect(sent.map((r) => r.to_address).sort()).toEqual(
      users
        .slice(optedOut.length)
        .map((u) => u.email)
        .sort(),
    );

    // A drop within the 15 minutes: told in the app at once, e-mailed no sooner than the window's end.
    await api.http
      .put(`/seller/listings/${created.body.id}`)
      .set(seller.bearer)
      .send({ ...listing, price: 3500 })
      .expect(200);
    expect(await eventually(unread, (counts) => counts.every((c) => c === 2))).toEqual(users.map(() => 2));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await digests()).toHaveLength(users.length - optedOut.length);
  }, 120_000);
});

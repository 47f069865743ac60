import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase } from '../support/cases';
import { seedCatalog } from '../support/fixtures';
import { createListing } from '../support/listings';
import { commitPaidCheckout } from '../support/purchases';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const patch = (user: TestUser, body: object) => api.http.patch('/user/account').set(user.bearer).send(body);

async function upload(user: TestUser, bytes: Buffer, type = 'image/png'): Promise<string> {
  const created = await api.http.post('/uploads').set(user.bearer).expect(201);
  await api.http.put(`/uploads/${created.body.id}`).set(user.bearer).set('Content-Type', type).send(bytes).expect(200);
  return created.body.id;
}

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer();

describe('account', () => {
  it('changes username and sanitised profile text, shown on the public profile', async () => {
    const user = await registerUser(api);
    const me = await api.http.get('/user/account').set(user.bearer).expect(200);
    expect(me.body).toMatchObject({ id: user.id, username: user.username, profile: null, avatar: null, cover: null });

    const renamed = `${user.username}r`;
    const res = await patch(user, { username: renamed, profile: '<script>alert(1)</script><b>Collector</b> of <i>old</i> cards' }).expect(
      200,
    );
    expect(res.body).toMatchObject({ username: renamed, profile: 'Collector of old cards' });
    const profile = await api.http.get(`/profile/${renamed}`).expect(200);
    expect(profile.body).toMatchObject({ id: user.id, username: renamed, profile: 'Collector of old cards' });
    await api.http.get(`/profile/${user.username}`).expect(404);

    const other = await registerUser(api);
    const taken = await patch(other, { username: renamed.toUpperCase() }).expect(409);
    expect(taken.body.type).toBe('/problems/username-taken');
    const bad = await patch(other, { username: 'a', profile: 'x'.repeat(5000) }).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['profile', 'username']);
    const long = await patch(other, { profile: 'y'.repeat(1001) }).expect(400);
    expect(long.body.errors[0].field).toBe('profile');
    await patch(other, {}).expect(400);
  });

  it('decodes and resizes avatar and cover uploads to fixed WebP sizes', async () => {
    const user = await registerUser(api);
    const avatarId = await upload(user, await png(900, 600));
    const coverId = await upload(user, await png(400, 400));
    const res = await patch(user, { avatar: avatarId, cover: coverId }).expect(200);
    for (const [url, width, height] of [
      [res.body.avatar, 256, 256],
      [res.body.cover, 1500, 500],
    ] as const) {
      const image = await api.http.get(new URL(url).pathname).buffer(true).expect(200);
      expect(image.headers['content-type']).toBe('image/webp');
      expect(await sharp(image.body).metadata()).toMatchObject({ format: 'webp', width, height });
    }
    const profile = await api.http.get(`/profile/${user.id}`).expect(200);
    expect(profile.body).toMatchObject({ avatar: res.body.avatar, cover: res.body.cover });

    // Someone else's upload and a draft are refused; bytes that only look like an image never
    // become an upload (refused when they arrive, so `image-undecodable` is a safety net here).
    const other = await registerUser(api);
    const theirs = await upload(other, await png(10, 10));
    expect((await patch(user, { avatar: theirs }).expect(400)).body.type).toBe('/problems/upload-not-ready');
    const draft = (await api.http.post('/uploads').set(user.bearer).expect(201)).body.id;
    await patch(user, { cover: draft }).expect(400);
    const broken = Buffer.concat([(await png(10, 10)).subarray(0, 40), Buffer.alloc(40)]);
    const brokenUpload = (await api.http.post('/uploads').set(user.bearer).expect(201)).body.id;
    const put = await api.http.put(`/uploads/${brokenUpload}`).set(user.bearer).type('image/png').send(broken).expect(422);
    expect(put.body).toMatchObject({ type: '/problems/image-rejected', reasons: ['undecodable'] });
    expect((await patch(user, { avatar: brokenUpload }).expect(400)).body.type).toBe('/problems/upload-not-ready');
    expect((await patch(user, { avatar: null }).expect(200)).body.avatar).toBeNull();
  });

  it('changes the password only with the current one, and signs out the other sessions', async () => {
    const user = await registerUser(api);
    const signIn = (password: string) => api.http.post('/oauth/token').send({ grant_type: 'password', username: user.username, password });
    const other = (await signIn(user.password).expect(200)).body;
    const refresh = (token: string) => api.http.post('/oauth/token').send({ grant_type: 'refresh_token', refresh_token: token });

    const wrong = await patch(user, { password: { current: 'not-the-password', new: 'a-new-password-1' } }).expect(400);
    expect(wrong.body.type).toBe('/problems/current-password-incorrect');
    await patch(user, { password: { current: user.password, new: 'a-new-password-1' } }).expect(200);

    expect((await refresh(other.refresh_token)).status).toBe(400);
    // The session that made the change keeps working.
    await refresh(user.refreshToken).expect(200);
    await signIn(user.password).expect(400);
    await signIn('a-new-password-1').expect(200);
  });
});

describe('account stats', () => {
  it('counts purchases, spending, cases and reviews, and serves from cache until a change', async () => {
    const buyer = await registerUser(api);
    const seller = await registerSeller(api);
    const stats = () => api.http.get('/user/account/stats').set(buyer.bearer).expect(200);
    // A user's first authenticated request also stamps last_active_at (at most once a minute);
    // made here, so the statements counted below are the stats' own.
    await api.http.get('/user/account').set(buyer.bearer).expect(200);
    // Likewise the unread total's own cache (the conversations'), read beside the stats entry.
    await api.http.get('/conversations/unread').set(buyer.bearer).expect(200);
    const queries = jest.spyOn(api.database.db, 'query');
    const countQueries = async () => {
      queries.mockClear();
      const res = await stats();
      return { body: res.body, statements: queries.mock.calls.length };
    };

    const first = await countQueries();
    expect(first.body).toEqual({
      purchases: { total: 0, paid: 0, completed: 0 },
      spent: 0,
      cases: { open: 0 },
      reviews: { written: 0, received: 0 },
      unread: { messages: 0, conversations: 0 },
    });
    const hit = await countQueries();
    expect(hit.body).toEqual(first.body);
    // A hit is the version read alone; a miss adds the counting query.
    expect(hit.statements).toBe(first.statements - 1);

    const { orderId } = await commitPaidCheckout(api.database.db, buyer.id, seller.id, 2599);
    const afterPurchase = await countQueries();
    expect(afterPurchase.statements).toBe(first.statements);
    expect(afterPurchase.body).toMatchObject({ purchases: { total: 1, paid: 1, completed: 0 }, spent: 2599 });
    expect((await countQueries()).statements).toBe(hit.statements);

    const opened = await insertCase(api.database.db, orderId, 'BUYER', { items: [] });
    const afterCase = await countQueries();
    expect(afterCase.statements).toBe(first.statements);
    expect(afterCase.body.cases).toEqual({ open: 1 });

    await recordCaseChange(
      api.database.db,
      { caseId: opened.caseId, changeId: randomUUID(), actor: 'BUYER', kind: 'resolve', status: 'CLOSED', outcomes: [] },
      { reviewWindowSeconds: 60, ...caseChangeStarts },
    );
    const afterClose = await countQueries();
    expect(afterClose.statements).toBe(first.statements);
    expect(afterClose.body.cases).toEqual({ open: 0 });

    // Receipt is not a counted change; reviews need it.
    await api.database.db.query(`UPDATE orders SET status = 'RECEIVED', received_at = now() WHERE id = $1`, [orderId]);
    await api.http
      .post('/user/reviews')
      .set(buyer.bearer)
      .send({ source: { type: 'ORDER', id: orderId }, rating: 5 })
      .expect(201);
    const afterReview = await countQueries();
    expect(afterReview.statements).toBe(first.statements);
    expect(afterReview.body).toMatchObject({ reviews: { written: 1, received: 0 }, cases: { open: 0 } });
    expect((await countQueries()).statements).toBe(hit.statements);

    await api.http
      .post('/user/reviews')
      .set(seller.bearer)
      .send({ source: { type: 'ORDER', id: orderId }, rating: 4 })
      .expect(201);
    expect((await stats()).body.reviews).toEqual({ written: 1, received: 1 });
    queries.mockRestore();
  });

  it('shows unread messages from the conversations, fresh after a message and after reading', async () => {
    const seller = await registerSeller(api);
    const asker = await registerUser(api);
    const { items } = await seedCatalog(api.database.db);
    const { data } = await createListing(api.database.db, seller.id, { urn: items[0]!.urn });
    const unread = async (user: TestUser) => (await api.http.get('/user/account/stats').set(user.bearer).expect(200)).body.unread;

    expect(await unread(seller)).toEqual({ messages: 0, conversations: 0 });
    const opened = await api.http
      .post('/conversations')
      .set(asker.bearer)
      .send({ source: { type: 'LISTING', id: data.listingId }, recipientId: seller.id, body: 'Is the corner bent?' })
      .expect(201);
    await api.http.post(`/conversations/${opened.body.id}/messages`).set(asker.bearer).send({ body: 'And the back?' }).expect(201);
    expect(await unread(seller)).toEqual({ messages: 2, conversations: 1 });
    expect(await unread(asker)).toEqual({ messages: 0, conversations: 0 });

    await api.http.get(`/conversations/${opened.body.id}/messages`).set(seller.bearer).expect(200);
    expect(await unread(seller)).toEqual({ messages: 0, conversations: 0 });
  });
});

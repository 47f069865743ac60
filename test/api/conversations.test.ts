import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog } from '../support/fixtures';
import { animatedWebp, blankPng, jpegWithGps, png } from '../support/images';
import { createListing } from '../support/listings';
import { insertPurchase } from '../support/orders';

let api: TestApi;
let dir: string;
let urn: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mts-conversations-'));
  api = await startTestApi({ env: { UPLOADS_DIR: dir } });
  urn = (await seedCatalog(api.database.db)).items[0]!.urn;
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A buyer, a seller and an order between them. */
async function orderPair() {
  const buyer = await registerUser(api, 'buyer');
  const seller = await registerUser(api, 'seller');
  const { orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id], orderStatus: 'SHIPPED' });
  return { buyer, seller, orderId: orderIds[0]! };
}

const open = (from: TestUser, to: TestUser, sourceId: string, body = 'Hello', type?: 'ORDER' | 'LISTING') =>
  api.http
    .post('/conversations')
    .set(from.bearer)
    .send({ source: { id: sourceId, ...(type ? { type } : {}) }, recipientId: to.id, body });

const say = (from: TestUser, conversationId: string, body: string) =>
  api.http.post(`/conversations/${conversationId}/messages`).set(from.bearer).send({ body });

async function conversation() {
  const pair = await orderPair();
  const res = await open(pair.buyer, pair.seller, pair.orderId, 'Where is my parcel?').expect(201);
  return { ...pair, conversationId: res.body.id as string };
}

async function upload(user: TestUser, bytes: Buffer): Promise<string> {
  const created = await api.http.post('/uploads').set(user.bearer).expect(201);
  await api.http
    .put(`/uploads/${created.body.id}`)
    .set(user.bearer)
    .set('Content-Type', 'application/octet-stream')
    .send(bytes)
    .expect(200);
  return created.body.id;
}

const unread = async (user: TestUser) => (await api.http.get('/conversations/unread').set(user.bearer).expect(200)).body;

describe('opening a conversation about an order', () => {
  it('creates the conversation with its first message in one call', async () => {
    const { buyer, seller, orderId } = await orderPair();
    const res = await open(buyer, seller, orderId, 'Where is my parcel?').expect(201);
    expect(res.body).toMatchObject({
      source: { type: 'ORDER', id: orderId },
      userA: { id: buyer.id, username: buyer.username },
      userB: { id: seller.id },
      locked: false,
      lockedBy: null,
      unread: 0,
      lastMessage: { body: 'Where is my parcel?', sender: { id: buyer.id }, viewedAt: null, attachments: [] },
    });
    expect(res.body.lastMessage.conversationId).toBe(res.body.id);
  });

  it('lets the seller open it too, towards the buyer', async () => {
    const { buyer, seller, orderId } = await orderPair();
    const res = await open(seller, buyer, orderId, 'Shipped today').expect(201);
    expect(res.body.userA.id).toBe(seller.id);
  });

  it('answers a second create by either party with the same conversation (200) and the message added to it', async () => {
    const { buyer, seller, orderId, conversationId } = await conversation();
    const again = await open(seller, buyer, orderId, 'Reply through create').expect(200);
    expect(again.body.id).toBe(conversationId);
    expect(again.body.lastMessage.body).toBe('Reply through create');
    const messages = await api.http.get(`/conversations/${conversationId}/messages`).set(buyer.bearer).expect(200);
    expect(messages.body.map((m: { body: string }) => m.body)).toEqual(['Reply through create', 'Where is my parcel?']);
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM conversations WHERE source_id = $1`, [orderId]);
    expect(count).toBe(1);
  });

  it('is 404 for an outsider, as if the order did not exist', async () => {
    const { seller, orderId } = await orderPair();
    const stranger = await registerUser(api);
    const res = await open(stranger, seller, orderId).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
  });

  it('is 400 when the recipient is not the other party, or is the caller', async () => {
    const { buyer, orderId } = await orderPair();
    const stranger = await registerUser(api);
    const wrong = await open(buyer, stranger, orderId).expect(400);
    expect(wrong.body.type).toBe('/problems/invalid-recipient');
    expect(wrong.body.errors[0].field).toBe('recipientId');
    await open(buyer, buyer, orderId).expect(400);
  });

  it('sanitises the body like reviews and refuses one that is empty afterwards or too long', async () => {
    const { buyer, seller, orderId } = await orderPair();
    const res = await open(buyer, seller, orderId, '  <b>Hi</b><script>alert(1)</script> there ').expect(201);
    expect(res.body.lastMessage.body).toBe('Hi there');
    const c = await conversation();
    const blank = await say(c.buyer, c.conversationId, '<img src=x>').expect(400);
    expect(blank.body.errors[0].field).toBe('body');
    const long = await say(c.buyer, c.conversationId, 'x'.repeat(4001)).expect(400);
    expect(long.body.type).toBe('/problems/validation-failed');
  });
});

describe('questions about a listing', () => {
  it('lets anyone but the seller ask the seller; the seller answers in that conversation', async () => {
    const seller = await registerUser(api, 'seller');
    const asker = await registerUser(api, 'asker');
    const { data } = await createListing(api.database.db, seller.id, { urn });
    const res = await open(asker, seller, data.listingId, 'Is the corner bent?', 'LISTING').expect(201);
    expect(res.body.source).toEqual({ type: 'LISTING', id: data.listingId });
    await say(seller, res.body.id, 'No, it is flat').expect(201);
  });

  it('refuses the seller asking about their own listing, and a recipient who is not the seller', async () => {
    const seller = await registerUser(api, 'seller');
    const asker = await registerUser(api, 'asker');
    const other = await registerUser(api);
    const { data } = await createListing(api.database.db, seller.id, { urn });
    expect((await open(seller, asker, data.listingId, 'Hi', 'LISTING').expect(400)).body.type).toBe('/problems/invalid-recipient');
    expect((await open(asker, other, data.listingId, 'Hi', 'LISTING').expect(400)).body.type).toBe('/problems/invalid-recipient');
  });

  it('is 404 for a deleted listing', async () => {
    const seller = await registerUser(api, 'seller');
    const asker = await registerUser(api, 'asker');
    const { data } = await createListing(api.database.db, seller.id, { urn });
    await api.database.db.query(`UPDATE listings SET deleted_at = now() WHERE id = $1`, [data.listingId]);
    await open(asker, seller, data.listingId, 'Still there?', 'LISTING').expect(404);
  });
});

describe('messages', () => {
  it('lists newest first with the spec defaults (page 1, size 20) and pages further', async () => {
    const { buyer, seller, conversationId } = await conversation();
    for (let i = 1; i <= 21; i++) await say(i % 2 ? seller : buyer, conversationId, `m${i}`).expect(201);
    const first = await api.http.get(`/conversations/${conversationId}/messages`).set(buyer.bearer).expect(200);
    expect(first.body).toHaveLength(20);
    expect(first.body[0].body).toBe('m21');
    expect(first.body[19].body).toBe('m2');
    const second = await api.http.get(`/conversations/${conversationId}/messages?page=2&size=20`).set(buyer.bearer).expect(200);
    expect(second.body.map((m: { body: string }) => m.body)).toEqual(['m1', 'Where is my parcel?']);
    await api.http.get(`/conversations/${conversationId}/messages?size=51`).set(buyer.bearer).expect(400);
  });

  it("requests the recipient's notification (signal-with-start) in the message's transaction, once per message", async () => {
    const { buyer, seller, conversationId } = await conversation();
    const reply = await say(seller, conversationId, 'Shipped').expect(201);
    const rows: Array<{
      workflow_id: string;
      request_key: string;
      args: Array<Record<string, unknown>>;
      options: Record<string, unknown>;
    }> = await api.database.db.query(
      `SELECT workflow_id, request_key, args, options FROM workflow_starts WHERE workflow_id LIKE $1 ORDER BY id`,
      [`conversation-notify:${conversationId}:%`],
    );
    expect(rows.map((r) => r.workflow_id)).toEqual([
      `conversation-notify:${conversationId}:${seller.id}`,
      `conversation-notify:${conversationId}:${buyer.id}`,
    ]);
    expect(rows[1]).toMatchObject({
      request_key: `message:${reply.body.id}`,
      args: [{ conversationId, userId: buyer.id, graceMs: 120_000, maxDelayMs: 900_000, inactiveSeconds: 300 }],
      options: { reusePolicy: 'ALLOW_DUPLICATE', signal: { name: 'newMessage', args: [] } },
    });
  });

  it('is 404 to an outsider on read and on post', async () => {
    const { conversationId } = await conversation();
    const stranger = await registerUser(api);
    expect((await api.http.get(`/conversations/${conversationId}/messages`).set(stranger.bearer).expect(404)).body.type).toBe(
      '/problems/not-found',
    );
    await api.http.get(`/conversations/${conversationId}`).set(stranger.bearer).expect(404);
    await say(stranger, conversationId, 'let me in').expect(404);
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM messages WHERE conversation_id = $1`, [
      conversationId,
    ]);
    expect(count).toBe(1);
  });

  it("reading marks the other participant's messages viewed, not the reader's own", async () => {
    const { buyer, seller, conversationId } = await conversation();
    await say(seller, conversationId, 'On its way').expect(201);
    const bySeller = await api.http.get(`/conversations/${conversationId}/messages`).set(seller.bearer).expect(200);
    // The seller read the buyer's message; the seller's own message stays unread until the buyer reads.
    expect(bySeller.body.find((m: { body: string }) => m.body === 'On its way').viewedAt).toBeNull();
    expect(bySeller.body.find((m: { body: string }) => m.body === 'Where is my parcel?').viewedAt).not.toBeNull();
    const byBuyer = await api.http.get(`/conversations/${conversationId}/messages`).set(buyer.bearer).expect(200);
    expect(byBuyer.body.every((m: { viewedAt: string | null }) => m.viewedAt !== null)).toBe(true);
  });

  it('limits each sender to 20 messages a minute (429 with Retry-After)', async () => {
    const { buyer, conversationId } = await conversation(); // the opening message counts
    for (let i = 0; i < 19; i++) await say(buyer, conversationId, `n${i}`).expect(201);
    const limited = await say(buyer, conversationId, 'one too many').expect(429);
    expect(limited.body.type).toBe('/problems/message-rate-limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('inbox and unread counts', () => {
  it("lists the caller's conversations, newest activity first, with last message and unread count", async () => {
    const buyer = await registerUser(api, 'buyer');
    const s1 = await registerUser(api, 'seller');
    const s2 = await registerUser(api, 'seller');
    const { orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [s1.id, s2.id], orderStatus: 'SHIPPED' });
    const c1 = (await open(buyer, s1, orderIds[0]!, 'to s1').expect(201)).body.id;
    const c2 = (await open(buyer, s2, orderIds[1]!, 'to s2').expect(201)).body.id;
    await say(s1, c1, 'reply 1').expect(201);
    await say(s1, c1, 'reply 2').expect(201);

    const inbox = await api.http.get('/conversations').set(buyer.bearer).expect(200);
    expect(inbox.body).toMatchObject({ total: 2, page: 1, size: 20 });
    expect(inbox.body.items.map((c: { id: string }) => c.id)).toEqual([c1, c2]);
    expect(inbox.body.items[0]).toMatchObject({ unread: 2, lastMessage: { body: 'reply 2', sender: { id: s1.id } } });
    expect(inbox.body.items[1]).toMatchObject({ unread: 0, lastMessage: { body: 'to s2' } });
    const paged = await api.http.get('/conversations?page=2&size=1').set(buyer.bearer).expect(200);
    expect(paged.body).toMatchObject({ total: 2, page: 2, size: 1 });
    expect(paged.body.items.map((c: { id: string }) => c.id)).toEqual([c2]);
    // Each side sees only its own conversations.
    expect((await api.http.get('/conversations').set(s2.bearer).expect(200)).body.total).toBe(1);
  });

  it('counts unread messages before reading and none after', async () => {
    const { buyer, seller, conversationId } = await conversation();
    expect(await unread(seller)).toMatchObject({ messages: 1, conversations: 1 });
    await say(buyer, conversationId, 'Any news?').expect(201);
    const before = await unread(seller);
    expect(before).toMatchObject({ messages: 2, conversations: 1 });
    // Polling again without a change answers the same version.
    expect((await unread(seller)).version).toBe(before.version);
    await api.http.get(`/conversations/${conversationId}/messages`).set(seller.bearer).expect(200);
    const after = await unread(seller);
    expect(after).toMatchObject({ messages: 0, conversations: 0 });
    expect(after.version).not.toBe(before.version);
    expect(await unread(buyer)).toMatchObject({ messages: 0 });
    const single = await api.http.get(`/conversations/${conversationId}`).set(seller.bearer).expect(200);
    expect(single.body.unread).toBe(0);
  });
});

describe('locking', () => {
  it('refuses new messages from both sides with 409 while locked; only the locker unlocks', async () => {
    const { buyer, seller, orderId, conversationId } = await conversation();
    const locked = await api.http.put(`/conversations/${conversationId}/lock`).set(seller.bearer).expect(200);
    expect(locked.body).toMatchObject({ locked: true, lockedBy: seller.id });
    expect((await say(buyer, conversationId, 'hello?').expect(409)).body.type).toBe('/problems/conversation-locked');
    await say(seller, conversationId, 'me neither').expect(409);
    await open(buyer, seller, orderId, 'via create').expect(409);
    // Reading still works.
    await api.http.get(`/conversations/${conversationId}/messages`).set(buyer.bearer).expect(200);
    const refused = await api.http.delete(`/conversations/${conversationId}/lock`).set(buyer.bearer).expect(409);
    expect(refused.body.type).toBe('/problems/locked-by-other-party');
    const unlocked = await api.http.delete(`/conversations/${conversationId}/lock`).set(seller.bearer).expect(200);
    expect(unlocked.body).toMatchObject({ locked: false, lockedBy: null });
    await say(buyer, conversationId, 'thanks').expect(201);
  });

  it('is 404 to an outsider', async () => {
    const { conversationId } = await conversation();
    const stranger = await registerUser(api);
    await api.http.put(`/conversations/${conversationId}/lock`).set(stranger.bearer).expect(404);
  });
});

describe('attachments', () => {
  const attach = (user: TestUser, conversationId: string, messageId: string, uploadId: string) =>
    api.http.patch(`/conversations/${conversationId}/messages/${messageId}/attachments`).set(user.bearer).send({ id: uploadId });

  async function withMessage() {
    const c = await conversation();
    const msg = await say(c.buyer, c.conversationId, 'photo of the damage').expect(201);
    return { ...c, messageId: msg.body.id as string };
  }

  it('attaches an image and serves it with its EXIF/GPS metadata stripped', async () => {
    const { buyer, seller, conversationId, messageId } = await withMessage();
    const original = await jpegWithGps();
    expect((await sharp(original).metadata()).exif).toBeDefined();
    expect(original.includes('TestCamMaker')).toBe(true);
    const uploadId = await upload(buyer, original);
    const res = await attach(buyer, conversationId, messageId, uploadId).expect(200);
    expect(res.body).toMatchObject({ imageId: uploadId, url: expect.stringMatching(new RegExp(`/images/${uploadId}$`)) });

    const served = await api.http
      .get(`/images/${uploadId}`)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    const bytes = served.body as Buffer;
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
    expect(meta.exif).toBeUndefined();
    expect(bytes.includes('TestCamMaker')).toBe(false);

    const messages = await api.http.get(`/conversations/${conversationId}/messages`).set(seller.bearer).expect(200);
    expect(messages.body[0].attachments).toEqual([res.body]);
  });

  it('rejects what moderation detects with 422 and `reasons`', async () => {
    const { buyer, conversationId, messageId } = await withMessage();
    const cases: Array<[Buffer, string]> = [
      [await blankPng(), 'blank'],
      [await png(8, 8), 'too-small'],
    ];
    for (const [bytes, reason] of cases) {
      const res = await attach(buyer, conversationId, messageId, await upload(buyer, bytes)).expect(422);
      expect(res.body.type).toBe('/problems/image-rejected');
      expect(res.body.reasons).toContain(reason);
    }
    // What cannot be decoded within the budgets never becomes an upload: refused when the bytes arrive.
    const refusedOnArrival: Array<[Buffer, string]> = [
      [await animatedWebp(120), 'too-many-frames'],
      // A JPEG header on bytes that are not a JPEG.
      [Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]), 'undecodable'],
    ];
    for (const [bytes, reason] of refusedOnArrival) {
      const created = await api.http.post('/uploads').set(buyer.bearer).expect(201);
      const res = await api.http
        .put(`/uploads/${created.body.id}`)
        .set(buyer.bearer)
        .type('application/octet-stream')
        .send(bytes)
        .expect(422);
      expect(res.body.type).toBe('/problems/image-rejected');
      expect(res.body.reasons).toContain(reason);
    }
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM message_attachments WHERE message_id = $1`, [
      messageId,
    ]);
    expect(count).toBe(0);
  });

  it('accepts a small animation', async () => {
    const { buyer, conversationId, messageId } = await withMessage();
    await attach(buyer, conversationId, messageId, await upload(buyer, await animatedWebp(3))).expect(200);
  });

  it('checks membership (404), message ownership (404), the upload (400), lock and limits (409)', async () => {
    const { buyer, seller, conversationId, messageId } = await withMessage();
    const stranger = await registerUser(api);
    const image = await png();
    await attach(stranger, conversationId, messageId, await upload(stranger, image)).expect(404);
    // The seller is in the conversation but did not write this message.
    await attach(seller, conversationId, messageId, await upload(seller, image)).expect(404);
    // Someone else's upload.
    expect((await attach(buyer, conversationId, messageId, await upload(seller, image)).expect(400)).body.type).toBe(
      '/problems/upload-not-ready',
    );
    const draft = (await api.http.post('/uploads').set(buyer.bearer).expect(201)).body.id;
    await attach(buyer, conversationId, messageId, draft).expect(400);

    const first = await upload(buyer, image);
    await attach(buyer, conversationId, messageId, first).expect(200);
    expect((await attach(buyer, conversationId, messageId, first).expect(409)).body.type).toBe('/problems/upload-already-attached');
    for (let i = 0; i < 3; i++) await attach(buyer, conversationId, messageId, await upload(buyer, image)).expect(200);
    expect((await attach(buyer, conversationId, messageId, await upload(buyer, image)).expect(409)).body.type).toBe(
      '/problems/attachment-limit-reached',
    );

    const other = await say(buyer, conversationId, 'another').expect(201);
    await api.http.put(`/conversations/${conversationId}/lock`).set(seller.bearer).expect(200);
    expect((await attach(buyer, conversationId, other.body.id, await upload(buyer, image)).expect(409)).body.type).toBe(
      '/problems/conversation-locked',
    );
  });
});

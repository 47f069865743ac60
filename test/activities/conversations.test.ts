import { createConversationActivities } from '../../activities/conversations';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { insertPurchase } from '../support/orders';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const activities = () => createConversationActivities({ db: api.database.db });

/** A conversation whose opening message (buyer → seller) the seller has not read; the seller never made an authenticated request. */
async function unreadBySeller() {
  const buyer = await registerUser(api, 'buyer');
  const seller = await registerUser(api, 'seller');
  const { orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id], orderStatus: 'SHIPPED' });
  const res = await api.http
    .post('/conversations')
    .set(buyer.bearer)
    .send({ source: { id: orderIds[0] }, recipientId: seller.id, body: 'Hello?' })
    .expect(201);
  return { buyer, seller, conversationId: res.body.id as string };
}

const emailsTo = async (address: string) =>
  api.database.db.query(`SELECT id, subject, kind FROM email_messages WHERE to_address = $1`, [address]) as Promise<
    Array<{ id: string; subject: string; kind: string }>
  >;

describe('queueUnreadNotification', () => {
  it('queues one e-mail to an inactive recipient with unread messages; a retry returns the same one', async () => {
    const { buyer, seller, conversationId } = await unreadBySeller();
    const check = { conversationId, userId: seller.id, inactiveSeconds: 300 };
    const id = await activities().queueUnreadNotification(check);
    expect(id).not.toBeNull();
    expect(await activities().queueUnreadNotification(check)).toBe(id);
    const emails = await emailsTo(seller.email);
    expect(emails).toEqual([{ id, kind: 'conversation-unread', subject: `${buyer.username} sent you a new message` }]);
  });

  it('sends nothing once the recipient has read the messages', async () => {
    const { seller, conversationId } = await unreadBySeller();
    await api.http.get(`/conversations/${conversationId}/messages`).set(seller.bearer).expect(200);
    expect(await activities().queueUnreadNotification({ conversationId, userId: seller.id, inactiveSeconds: 0 })).toBeNull();
    expect(await emailsTo(seller.email)).toEqual([]);
  });

  it('sends nothing to a recipient who made an authenticated request recently', async () => {
    const { seller, conversationId } = await unreadBySeller();
    await api.http.get('/conversations/unread').set(seller.bearer).expect(200); // active now, messages still unread
    expect(await activities().queueUnreadNotification({ conversationId, userId: seller.id, inactiveSeconds: 300 })).toBeNull();
    expect(await emailsTo(seller.email)).toEqual([]);
  });

  it('tells about newer unread messages only', async () => {
    const { buyer, seller, conversationId } = await unreadBySeller();
    const check = { conversationId, userId: seller.id, inactiveSeconds: 300 };
    const first = await activities().queueUnreadNotification(check);
    await api.http.post(`/conversations/${conversationId}/messages`).set(buyer.bearer).send({ body: 'Still there?' }).expect(201);
    const second = await activities().queueUnreadNotification(check);
    expect(second).not.toBe(first);
    expect((await emailsTo(seller.email)).map((e) => e.subject)).toContain(`${buyer.username} sent you 2 unread messages`);
  });
});

import { MAX_SHIPMENT_ATTACHMENTS } from '../../src/services/orders/shipment-attachments';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPaidOrder } from '../support/cases';
import { apiClient, type ApiClient } from '../support/client';
import { png } from '../support/images';

let api: TestApi;
let seller: TestUser;
let otherSeller: TestUser;
let buyer: TestUser;
let sellerClient: ApiClient;
beforeAll(async () => {
  api = await startTestApi();
  // The buyer is a seller too, so the seller routes answer them on ownership (404), not on role.
  [seller, otherSeller, buyer] = await Promise.all([
    registerSeller(api, 'paseller'),
    registerSeller(api, 'paseller'),
    registerSeller(api, 'pabuyer'),
  ]);
  sellerClient = apiClient(api, seller.bearer);
});
afterAll(() => api.close());

const db = () => api.database.db;

/** An accepted order of the seller's, shipped over HTTP; returns its purchase, order and shipment ids. */
async function shipped() {
  const { purchaseId, orderId, itemIds } = await insertPaidOrder(db(), buyer.id, seller.id, [1]);
  await db().query(`UPDATE orders SET status = 'ACCEPTED' WHERE id = $1`, [orderId]);
  await db().query(`UPDATE order_items SET status = 'ACCEPTED' WHERE order_id = $1`, [orderId]);
  const ship = await sellerClient.POST('/seller/orders/{id}', {
    params: { path: { id: orderId } },
    body: {
      action: 'ship',
      shipment: { carrier: 'Simulated Post', trackingNumber: 'SIM-POSTED' },
      items: [{ id: itemIds[0]!, quantity: 1 }],
    },
  });
  expect(ship.response.status).toBe(204);
  const order = await sellerClient.GET('/seller/orders/{id}', { params: { path: { id: orderId } } });
  return { purchaseId, orderId, shipmentId: order.data!.shipments[0]!.id };
}

/** A draft upload of `user`'s, finished with image bytes unless `finish` is false. */
async function upload(user: TestUser, finish = true): Promise<string> {
  const created = await apiClient(api, user.bearer).POST('/uploads');
  expect(created.response.status).toBe(201);
  // The bytes are a raw image body, not JSON: sent as they are.
  if (finish)
    await api.http
      .put(`/uploads/${created.data!.id}`)
      .set(user.bearer)
      .type('image/png')
      .send(await png())
      .expect(200);
  return created.data!.id;
}

const attach = (user: TestUser, orderId: string, shipmentId: string, uploadId: string) =>
  apiClient(api, user.bearer).POST('/seller/orders/{id}/shipments/{shipmentId}/attachments', {
    params: { path: { id: orderId, shipmentId } },
    body: { uploadId },
  });

const orderUpdatedEvents = async (orderId: string) =>
  Number(
    (await db().query(`SELECT count(*) AS n FROM outbox_events WHERE type = 'ORDER_UPDATED' AND data->>'orderId' = $1`, [orderId]))[0].n,
  );

describe('POST /seller/orders/{id}/shipments/{shipmentId}/attachments', () => {
  it('attaches a finished upload, shows it to the seller and the buyer, emits ORDER_UPDATED, and is idempotent', async () => {
    const { purchaseId, orderId, shipmentId } = await shipped();
    const before = await sellerClient.GET('/seller/orders/{id}', { params: { path: { id: orderId } } });
    expect(before.data!.shipments[0]!.attachments).toEqual([]);
    const uploadId = await upload(seller);
    const eventsBefore = await orderUpdatedEvents(orderId);

    const first = await attach(seller, orderId, shipmentId, uploadId);
    expect(first.response.status).toBe(201);
    expect(first.data).toEqual({
      id: expect.any(String),
      imageId: uploadId,
      url: `${api.baseUrl}/images/${uploadId}`,
      hidden: false,
      createdAt: expect.any(String),
    });
    expect(await orderUpdatedEvents(orderId)).toBe(eventsBefore + 1);

    const image = await api.http.get(new URL(first.data!.url).pathname).expect(200);
    expect(image.headers['content-type']).toBe('image/png');

    const order = await sellerClient.GET('/seller/orders/{id}', { params: { path: { id: orderId } } });
    expect(order.data!.shipments[0]!.attachments).toEqual([first.data]);
    const purchase = await apiClient(api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } });
    expect(purchase.response.status).toBe(200);
    expect(purchase.data!.orders[0]!.shipments[0]!.attachments).toEqual([first.data]);

    // The same upload again: the same attachment, nothing new, no event.
    const again = await attach(seller, orderId, shipmentId, uploadId);
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    expect(await orderUpdatedEvents(orderId)).toBe(eventsBefore + 1);
    const reread = await sellerClient.GET('/seller/orders/{id}', { params: { path: { id: orderId } } });
    expect(reread.data!.shipments[0]!.attachments).toHaveLength(1);
  });

  it('answers 404 to another seller and to the buyer, and for a shipment not of the order, attaching nothing', async () => {
    const { orderId, shipmentId } = await shipped();
    const other = await shipped();
    const theirs = await upload(otherSeller);
    const buyers = await upload(buyer);
    const mine = await upload(seller);

    const foreign = await attach(otherSeller, orderId, shipmentId, theirs);
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toMatchObject({ type: '/problems/not-found', status: 404 });
    expect((await attach(buyer, orderId, shipmentId, buyers)).response.status).toBe(404);
    expect((await attach(seller, orderId, other.shipmentId, mine)).response.status).toBe(404);

    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM shipment_attachments WHERE shipment_id = ANY($1)`, [
      [shipmentId, other.shipmentId],
    ]);
    expect(n).toBe(0);
  });

  it("refuses a draft, another user's or an unknown upload with 400, and an upload attached elsewhere with 409", async () => {
    const { orderId, shipmentId } = await shipped();
    const other = await shipped();
    for (const uploadId of [await upload(seller, false), await upload(buyer), '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b']) {
      const refused = await attach(seller, orderId, shipmentId, uploadId);
      expect(refused.response.status).toBe(400);
      expect(refused.error).toMatchObject({ type: '/problems/upload-not-ready', errors: [{ in: 'body', field: 'uploadId' }] });
    }
    const malformed = await attach(seller, orderId, shipmentId, 'not-a-uuid');
    expect(malformed.response.status).toBe(400);
    expect(malformed.error).toMatchObject({ type: '/problems/validation-failed', errors: [{ in: 'body', field: 'uploadId' }] });

    const uploadId = await upload(seller);
    expect((await attach(seller, other.orderId, other.shipmentId, uploadId)).response.status).toBe(201);
    const elsewhere = await attach(seller, orderId, shipmentId, uploadId);
    expect(elsewhere.response.status).toBe(409);
    expect(elsewhere.error).toMatchObject({ type: '/problems/upload-already-attached' });
  });

  it(`keeps a shipment to ${MAX_SHIPMENT_ATTACHMENTS} images, also on a received order`, async () => {
    const { orderId, shipmentId } = await shipped();
    await db().query(`UPDATE orders SET status = 'RECEIVED' WHERE id = $1`, [orderId]);
    const attached: string[] = [];
    for (let i = 0; i < MAX_SHIPMENT_ATTACHMENTS; i++) {
      const uploadId = await upload(seller);
      expect((await attach(seller, orderId, shipmentId, uploadId)).response.status).toBe(201);
      attached.push(uploadId);
    }
    const over = await attach(seller, orderId, shipmentId, await upload(seller));
    expect(over.response.status).toBe(409);
    expect(over.error).toMatchObject({ type: '/problems/attachment-limit-reached' });
    // At the limit, re-attaching one already there is still the idempotent 200.
    expect((await attach(seller, orderId, shipmentId, attached[0]!)).response.status).toBe(200);

    const order = await sellerClient.GET('/seller/orders/{id}', { params: { path: { id: orderId } } });
    expect(order.data!.shipments[0]!.attachments.map((a) => a.imageId)).toEqual(attached);
  });
});

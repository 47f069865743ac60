import { ordersWorkflowIds } from '../../src/modules/orders';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPaidOrder } from '../support/cases';
import { ordersModule } from '../../src/modules/orders';
import { servicesOf } from '../../src/modules';

let api: TestApi;
let seller: TestUser;
let otherSeller: TestUser;
let buyer: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [seller, otherSeller, buyer] = await Promise.all([
    registerSeller(api, 'trseller'),
    registerSeller(api, 'trseller'),
    registerUser(api, 'trbuyer'),
  ]);
});
afterAll(() => api.close());

const db = () => api.database.db;

/** An accepted order shipped over HTTP with `trackingNumber`; returns its order and shipment ids. */
async function shipped(trackingNumber: string) {
  const { orderId, itemIds } = await insertPaidOrder(db(), buyer.id, seller.id, [1]);
  await db().query(`UPDATE orders SET status = 'ACCEPTED' WHERE id = $1`, [orderId]);
  await db().query(`UPDATE order_items SET status = 'ACCEPTED' WHERE order_id = $1`, [orderId]);
  await api.http
    .post(`/seller/orders/${orderId}`)
    .set(seller.bearer)
    .send({
      action: 'ship',
      shipment: { carrier: 'Simulated Post', trackingNumber, trackingUrl: 'https://track.example/old' },
      items: [{ id: itemIds[0], quantity: 1 }],
    })
    .expect(204);
  const order = await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200);
  return { orderId, shipmentId: order.body.shipments[0].id as string };
}

const trackingPath = (orderId: string, shipmentId: string) => `/seller/orders/${orderId}/shipments/${shipmentId}/tracking`;
const startsFor = (shipmentId: string): Promise<Array<{ request_key: string; options: { signal?: { name: string } } }>> =>
  db().query(`SELECT request_key, options FROM workflow_starts WHERE workflow_id = $1 ORDER BY id`, [
    ordersWorkflowIds.shipmentTracking(shipmentId),
  ]);

describe('trackingSource', () => {
  it('tells seller and buyer when no carrier follows the number, so PRE_TRANSIT does not wait unexplained', async () => {
    const { orderId, shipmentId } = await shipped('RM123456785GB');
    const seen = async () => {
      const sellerView = await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200);
      const [{ purchase_id }] = await db().query(`SELECT purchase_id FROM orders WHERE id = $1`, [orderId]);
      const buyerView = await api.http.get(`/user/purchases/${purchase_id}`).set(buyer.bearer).expect(200);
      const buyerShipment = buyerView.body.orders.find((o: { id: string }) => o.id === orderId).shipments[0];
      return [sellerView.body.shipments[0], buyerShipment].map((s) => ({
        trackingStatus: s.trackingStatus,
        trackingSource: s.trackingSource,
        trackingStatusDetail: s.trackingStatusDetail,
      }));
    };
    expect(await seen()).toEqual(Array(2).fill({ trackingStatus: 'PRE_TRANSIT', trackingSource: 'PENDING', trackingStatusDetail: '' }));
    // The tracking workflow's poll (the embedded simulator follows only SIM… numbers).
    await servicesOf(api.services, ordersModule).shipmentTracking.poll(shipmentId);
    expect(await seen()).toEqual(
      Array(2).fill({
        trackingStatus: 'PRE_TRANSIT',
        trackingSource: 'NOT_CONNECTED',
        trackingStatusDetail: expect.stringMatching(/^Not tracked: no carrier is connected/),
      }),
    );
  });
});

describe('PUT /seller/orders/{id}/shipments/{shipmentId}/tracking', () => {
  it('replaces the number, starts the status over and restarts tracking for the new number', async () => {
    const { orderId, shipmentId } = await shipped('SIM-TYPO');
    // The tracking had already moved on under the wrong number.
    await db().query(`UPDATE shipments SET tracking_status = 'IN_TRANSIT', tracking_status_detail = 'On its way.' WHERE id = $1`, [
      shipmentId,
    ]);
    const eventsBefore = Number(
      (await db().query(`SELECT count(*) AS n FROM outbox_events WHERE type = 'ORDER_UPDATED' AND data->>'orderId' = $1`, [orderId]))[0].n,
    );

    await api.http.put(trackingPath(orderId, shipmentId)).set(seller.bearer).send({ trackingNumber: ' SIM-RIGHT ' }).expect(204);

    const order = await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200);
    expect(order.body.shipments[0]).toMatchObject({
      id: shipmentId,
      carrier: 'Simulated Post',
      trackingNumber: 'SIM-RIGHT',
      trackingUrl: '',
      trackingStatus: 'PRE_TRANSIT',
      trackingStatusDetail: '',
      trackingSource: 'PENDING',
    });
    const starts = await startsFor(shipmentId);
    expect(starts).toHaveLength(2); // the start with the shipment, then the correction
    expect(starts[1]!.request_key).toMatch(/^tracking-number:/);
    expect(starts[1]!.options).toMatchObject({ reusePolicy: 'ALLOW_DUPLICATE', signal: { name: 'trackingNumberChanged' } });
    const eventsAfter = Number(
      (await db().query(`SELECT count(*) AS n FROM outbox_events WHERE type = 'ORDER_UPDATED' AND data->>'orderId' = $1`, [orderId]))[0].n,
    );
    expect(eventsAfter).toBe(eventsBefore + 1);

    // The same values again: nothing changes, nothing restarts.
    await api.http.put(trackingPath(orderId, shipmentId)).set(seller.bearer).send({ trackingNumber: 'SIM-RIGHT' }).expect(204);
    expect(await startsFor(shipmentId)).toHaveLength(2);

    // A new carrier and URL are taken as given.
    await api.http
      .put(trackingPath(orderId, shipmentId))
      .set(seller.bearer)
      .send({ trackingNumber: 'SIM-RIGHT', carrier: 'Other Post', trackingUrl: 'https://track.example/right' })
      .expect(204);
    const again = await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200);
    expect(again.body.shipments[0]).toMatchObject({ carrier: 'Other Post', trackingUrl: 'https://track.example/right' });
    expect(await startsFor(shipmentId)).toHaveLength(3);
  });

  it("answers 404 for another seller's order and for a shipment not of the order, changing nothing", async () => {
    const { orderId, shipmentId } = await shipped('SIM-MINE');
    const other = await shipped('SIM-OTHER');
    await api.http.put(trackingPath(orderId, shipmentId)).set(otherSeller.bearer).send({ trackingNumber: 'SIM-X' }).expect(404);
    await api.http.put(trackingPath(orderId, other.shipmentId)).set(seller.bearer).send({ trackingNumber: 'SIM-X' }).expect(404);
    const [row] = await db().query(`SELECT tracking_number FROM shipments WHERE id = $1`, [shipmentId]);
    expect(row.tracking_number).toBe('SIM-MINE');
  });

  it('refuses a bad body with 400 problem+json and a received order with 409', async () => {
    const { orderId, shipmentId } = await shipped('SIM-DONE');
    const bad = await api.http
      .put(trackingPath(orderId, shipmentId))
      .set(seller.bearer)
      .send({ trackingNumber: '', trackingUrl: 'ftp://nope' })
      .expect(400);
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['trackingNumber', 'trackingUrl']);
    await api.http.put(trackingPath(orderId, 'not-a-uuid')).set(seller.bearer).send({ trackingNumber: 'SIM-X' }).expect(400);

    await db().query(`UPDATE orders SET status = 'RECEIVED' WHERE id = $1`, [orderId]);
    const received = await api.http
      .put(trackingPath(orderId, shipmentId))
      .set(seller.bearer)
      .send({ trackingNumber: 'SIM-LATE' })
      .expect(409);
    expect(received.body.type).toBe('/problems/order-already-received');
  });
});

import { createTrackingActivities } from '../../activities/tracking';
import { createCarrier } from '../../src/integrations/carriers';
import { SimulatorCarrier } from '../../src/integrations/carriers/simulator';
import { OrderUpdates } from '../../src/services/orders/order-updates';
import { SellerOrders } from '../../src/services/orders/seller-orders';
import { ShipmentTracking } from '../../src/services/orders/shipment-tracking';
import { orderActionStarts, orderStarts, ordersWorkflowIds } from '../../src/modules/orders';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPaidOrder } from '../support/cases';
import { EASYPOST_TEST_KEY, startEasyPostFake, type EasyPostFake } from '../support/easypost-fake';

const DAY = 86_400;
const policy = { pollSeconds: 3_600, pollMaxSeconds: 21_600, giveUpSeconds: 30 * DAY };

let api: TestApi;
let buyer: TestUser;
let seller: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [buyer, seller] = await Promise.all([registerUser(api), registerSeller(api)]);
});
afterAll(() => api.close());

const db = () => api.database.db;
let now = 0;
const tracking = () =>
  new ShipmentTracking(
    db(),
    new SimulatorCarrier({ stepSeconds: 60, now: () => now }),
    {
      autoReceiptSeconds: 21 * DAY,
      deliveredReceiptSeconds: 3 * DAY,
      tracking: policy,
    },
    orderStarts,
  );
const updates = () =>
  new OrderUpdates(
    db(),
    {
      autoEscalateSeconds: 7 * DAY,
      autoReceiptSeconds: 21 * DAY,
      reviewWindowSeconds: 14 * DAY,
      fundsHoldSeconds: 3 * DAY,
      tracking: policy,
    },
    orderActionStarts,
  );

/** An order of one item shipped in full with `trackingNumber`, through the order engine. */
async function shippedOrder(trackingNumber: string) {
  const { orderId, itemIds } = await insertPaidOrder(db(), buyer.id, seller.id, [1]);
  await db().query(`UPDATE orders SET status = 'ACCEPTED' WHERE id = $1`, [orderId]);
  await db().query(`UPDATE order_items SET status = 'ACCEPTED' WHERE order_id = $1`, [orderId]);
  const effects = await updates().apply(
    orderId,
    { role: 'seller', userId: seller.id },
    { action: 'ship', shipment: { carrier: 'Simulated Post', trackingNumber }, items: [{ id: itemIds[0]!, quantity: 1 }] },
  );
  return { orderId, shipmentId: effects!.shipmentId! };
}

const shipmentOf = async (shipmentId: string) =>
  (await db().query(`SELECT tracking_number, tracking_status, tracking_status_detail FROM shipments WHERE id = $1`, [shipmentId]))[0];
const sourceOf = async (shipmentId: string): Promise<string> =>
  (await db().query(`SELECT tracking_source FROM shipments WHERE id = $1`, [shipmentId]))[0].tracking_source;
const orderUpdatedCount = async (orderId: string) =>
  Number(
    (await db().query(`SELECT count(*) AS n FROM outbox_events WHERE type = 'ORDER_UPDATED' AND data->>'orderId' = $1`, [orderId]))[0].n,
  );
const startsFor = (workflowId: string) =>
  db().query(`SELECT workflow_type, request_key, args, options FROM workflow_starts WHERE workflow_id = $1 ORDER BY id`, [workflowId]);

describe('shipment tracking (activity and service on Postgres)', () => {
  it('starts tracking with the shipment, in the shipping transaction', async () => {
    const { shipmentId } = await shippedOrder('SIM-START');
    expect(await startsFor(ordersWorkflowIds.shipmentTracking(shipmentId))).toEqual([
      {
        workflow_type: 'shipmentTrackingWorkflow',
        request_key: '',
        args: [{ shipmentId, policy }],
        options: { reusePolicy: 'REJECT_DUPLICATE', summary: `Carrier tracking of shipment ${shipmentId}` },
      },
    ]);
  });

  it('writes each new status with its detail and one ORDER_UPDATED per change, and brings the receipt forward at DELIVERED', async () => {
    const { orderId, shipmentId } = await shippedOrder('SIM-WALK');
    const poll = createTrackingActivities({ shipmentTracking: tracking() }).pollShipmentTracking;
    const eventsBefore = await orderUpdatedCount(orderId);

    now = 1_000_000;
    expect(await poll(shipmentId)).toBe('PRE_TRANSIT');
    // PRE_TRANSIT with the carrier's detail differs from the column default's empty detail: one change.
    expect(await shipmentOf(shipmentId)).toEqual({
      tracking_number: 'SIM-WALK',
      tracking_status: 'PRE_TRANSIT',
      tracking_status_detail: expect.stringMatching(/label created/i),
    });
    expect(await orderUpdatedCount(orderId)).toBe(eventsBefore + 1);
    expect(await poll(shipmentId)).toBe('PRE_TRANSIT');
    expect(await orderUpdatedCount(orderId)).toBe(eventsBefore + 1); // unchanged: no event

    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      now += 60_000;
      seen.push(await poll(shipmentId));
      const row = await shipmentOf(shipmentId);
      expect(row.tracking_status).toBe(seen[i]);
      expect(row.tracking_status_detail).not.toBe('');
    }
    expect(seen).toEqual(['IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED']);
    expect(await orderUpdatedCount(orderId)).toBe(eventsBefore + 4);

    // The order view's deadline follows the timer's rule: 3 days after the delivery, not 21 after shipping.
    const periods = {
      autoReceiptSeconds: 21 * DAY,
      deliveredReceiptSeconds: 3 * DAY,
      autoEscalateSeconds: 7 * DAY,
      reviewWindowSeconds: 14 * DAY,
      dispatchSeconds: 3 * DAY,
      cancellationAnswerSeconds: 2 * DAY,
      decisionSeconds: 3 * DAY,
    };
    const view = await new SellerOrders(db(), periods).get(seller.id, orderId);
    const [{ delivered_at }] = await db().query(`SELECT delivered_at FROM orders WHERE id = $1`, [orderId]);
    expect(delivered_at).toBeInstanceOf(Date);
    expect(view.deadlines.autoReceiptAt).toEqual(new Date(delivered_at.getTime() + 3 * DAY * 1000));

    const receipt = await startsFor(ordersWorkflowIds.orderReceipt(orderId));
    expect(receipt).toEqual([
      expect.objectContaining({ request_key: '', args: [{ orderId, afterSeconds: 21 * DAY }] }),
      {
        workflow_type: 'orderReceiptWorkflow',
        request_key: 'orderDelivered',
        args: [{ orderId, afterSeconds: 21 * DAY }],
        options: {
          reusePolicy: 'REJECT_DUPLICATE',
          signal: { name: 'orderDelivered', args: [{ receiptSeconds: 3 * DAY }] },
          summary: `Automatic receipt of shipped order ${orderId} after ${21 * DAY} s`,
        },
      },
    ]);
  });

  it('does not bring the receipt forward while another shipment of the order is on its way', async () => {
    const { orderId, itemIds } = await insertPaidOrder(db(), buyer.id, seller.id, [1, 1]);
    await db().query(`UPDATE orders SET status = 'ACCEPTED' WHERE id = $1`, [orderId]);
    await db().query(`UPDATE order_items SET status = 'ACCEPTED' WHERE order_id = $1`, [orderId]);
    const ship = (trackingNumber: string, id: string) =>
      updates().apply(
        orderId,
        { role: 'seller', userId: seller.id },
        { action: 'ship', shipment: { carrier: 'Simulated Post', trackingNumber }, items: [{ id, quantity: 1 }] },
      );
    const first = (await ship('SIM-FIRST', itemIds[0]!))!.shipmentId!;
    const second = (await ship('SIM-SECOND', itemIds[1]!))!.shipmentId!;
    const service = tracking();
    expect(await service.record(first, 'SIM-FIRST', { status: 'DELIVERED', detail: 'Delivered.' })).toBe(true);
    expect((await startsFor(ordersWorkflowIds.orderReceipt(orderId))).map((s: { request_key: string }) => s.request_key)).toEqual(['']);
    const [partial] = await db().query(`SELECT delivered_at FROM orders WHERE id = $1`, [orderId]);
    expect(partial.delivered_at).toBeNull();
    expect(await service.record(second, 'SIM-SECOND', { status: 'DELIVERED', detail: 'Delivered.' })).toBe(true);
    expect((await startsFor(ordersWorkflowIds.orderReceipt(orderId))).map((s: { request_key: string }) => s.request_key)).toEqual([
      '',
      'orderDelivered',
    ]);
  });

  it('answers UNKNOWN_NUMBER for a number the carrier does not know, and SHIPMENT_GONE for a missing shipment', async () => {
    const { orderId, shipmentId } = await shippedOrder('RM123456789GB');
    const service = tracking();
    const events = await orderUpdatedCount(orderId);
    expect(await service.poll(shipmentId)).toBe('UNKNOWN_NUMBER');
    // An explanation, not an order change: no ORDER_UPDATED.
    expect(await orderUpdatedCount(orderId)).toBe(events);
    // Still PRE_TRANSIT, and it says why nothing moves.
    expect(await shipmentOf(shipmentId)).toMatchObject({
      tracking_status: 'PRE_TRANSIT',
      tracking_status_detail: expect.stringMatching(/^Not tracked: no carrier is connected for this number\./),
    });
    expect(await sourceOf(shipmentId)).toBe('NOT_CONNECTED');
    expect(await service.poll('00000000-0000-4000-8000-000000000000')).toBe('SHIPMENT_GONE');
  });

  it('says where each status comes from: SIMULATOR, NOT_CONNECTED for a number it does not follow, PENDING after a correction', async () => {
    const simulated = await shippedOrder('SIM-SOURCE');
    const real = await shippedOrder('RM987654321GB');
    expect(await sourceOf(simulated.shipmentId)).toBe('PENDING');
    const service = tracking();
    await service.poll(simulated.shipmentId);
    await service.poll(real.shipmentId);
    expect(await sourceOf(simulated.shipmentId)).toBe('SIMULATOR');
    expect(await sourceOf(real.shipmentId)).toBe('NOT_CONNECTED');
    await service.correct(seller.id, real.orderId, real.shipmentId, { trackingNumber: 'SIM-FIXED' });
    expect(await sourceOf(real.shipmentId)).toBe('PENDING');
  });

  describe('over EasyPost (recorded answers from a local fake)', () => {
    let fake: EasyPostFake;
    beforeAll(async () => {
      fake = await startEasyPostFake();
    });
    afterAll(() => fake.close());
    const overEasyPost = (apiKey = EASYPOST_TEST_KEY) =>
      new ShipmentTracking(
        db(),
        createCarrier({ provider: 'easypost', simulatorStepSeconds: 60, easypostApiKey: apiKey, easypostUrl: fake.baseUrl }),
        {
          autoReceiptSeconds: 21 * DAY,
          deliveredReceiptSeconds: 3 * DAY,
          tracking: policy,
        },
        orderStarts,
      );

    it("records the provider's status and words as CARRIER, and a number it does not know as NOT_FOUND", async () => {
      const moving = await shippedOrder('EZ3000000003');
      const poll = createTrackingActivities({ shipmentTracking: overEasyPost() }).pollShipmentTracking;
      expect(await poll(moving.shipmentId)).toBe('OUT_FOR_DELIVERY');
      expect(await shipmentOf(moving.shipmentId)).toEqual({
        tracking_number: 'EZ3000000003',
        tracking_status: 'OUT_FOR_DELIVERY',
        tracking_status_detail: 'Out for Delivery (CHARLESTON, US)',
      });
      expect(await sourceOf(moving.shipmentId)).toBe('CARRIER');

      const typo = await shippedOrder('EZ300000003');
      expect(await poll(typo.shipmentId)).toBe('UNKNOWN_NUMBER');
      expect(await shipmentOf(typo.shipmentId)).toMatchObject({
        tracking_status: 'PRE_TRANSIT',
        tracking_status_detail: 'The carrier has no record of this tracking number yet; check that it was entered correctly.',
      });
      expect(await sourceOf(typo.shipmentId)).toBe('NOT_FOUND');
    });

    it('answers CARRIER_UNAVAILABLE when the provider fails, changing nothing, so the workflow polls again later', async () => {
      const { orderId, shipmentId } = await shippedOrder('EZ-BOOM');
      const events = await orderUpdatedCount(orderId);
      const poll = createTrackingActivities({ shipmentTracking: overEasyPost() }).pollShipmentTracking;
      expect(await poll(shipmentId)).toBe('CARRIER_UNAVAILABLE');
      const revoked = createTrackingActivities({ shipmentTracking: overEasyPost('EZTK_revoked') }).pollShipmentTracking;
      expect(await revoked(shipmentId)).toBe('CARRIER_UNAVAILABLE');
      expect(await shipmentOf(shipmentId)).toMatchObject({ tracking_status: 'PRE_TRANSIT', tracking_status_detail: '' });
      expect(await sourceOf(shipmentId)).toBe('PENDING');
      expect(await orderUpdatedCount(orderId)).toBe(events);
    });
  });

  it('ignores a report made for a number the seller has since corrected', async () => {
    const { orderId, shipmentId } = await shippedOrder('SIM-OLD');
    const service = tracking();
    await service.correct(seller.id, orderId, shipmentId, { trackingNumber: 'SIM-NEW' });
    expect(await service.record(shipmentId, 'SIM-OLD', { status: 'DELIVERED', detail: 'Delivered.' })).toBe(false);
    expect(await shipmentOf(shipmentId)).toEqual({
      tracking_number: 'SIM-NEW',
      tracking_status: 'PRE_TRANSIT',
      tracking_status_detail: '',
    });
  });
});

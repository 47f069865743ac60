import { applyOrderAction, type Actor, type OrderAction } from '../../src/services/orders/order-engine';
import { reviewWindowStart } from '../../src/modules/reviews';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPaidOrder, type PaidOrder } from '../support/cases';

let api: TestApi;
let buyer: TestUser;
let seller: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [buyer, seller] = await Promise.all([registerUser(api), registerSeller(api)]);
});
afterAll(() => api.close());

const apply = (orderId: string, actor: Actor, action: OrderAction) =>
  api.database.db.transaction((tx) =>
    applyOrderAction(tx, orderId, actor, action, { reviewWindowSeconds: 60, reviewWindow: reviewWindowStart }),
  );
const asSeller = (): Actor => ({ role: 'seller', userId: seller.id });
const asBuyer = (): Actor => ({ role: 'buyer', userId: buyer.id });
const shipment = { carrier: 'Royal Mail', trackingNumber: 'RM1' };

/** A paid order of two lines (2 units and 1 unit), nothing shipped yet. */
async function acceptedOrder(): Promise<PaidOrder> {
  const order = await insertPaidOrder(api.database.db, buyer.id, seller.id, [2, 1]);
  await api.database.db.query(`UPDATE orders SET status = 'ACCEPTED' WHERE id = $1`, [order.orderId]);
  await api.database.db.query(`UPDATE order_items SET status = 'ACCEPTED' WHERE order_id = $1`, [order.orderId]);
  return order;
}

const statusOf = async (orderId: string) => {
  const [order] = await api.database.db.query(
    `SELECT o.status, p.status AS purchase FROM orders o JOIN purchases p ON p.id = o.purchase_id WHERE o.id = $1`,
    [orderId],
  );
  const items: Array<{ status: string; quantity: number }> = await api.database.db.query(
    `SELECT status, quantity FROM order_items WHERE order_id = $1 ORDER BY status, quantity`,
    [orderId],
  );
  return { order: order.status, purchase: order.purchase, items: items.map((i) => `${i.status}x${i.quantity}`) };
};

describe('applyOrderAction (on Postgres)', () => {
  it('refuses an action the actor may not take, whatever the status', async () => {
    const { orderId } = await acceptedOrder();
    await expect(apply(orderId, asSeller(), { action: 'receive' })).rejects.toMatchObject({ code: 'action-not-allowed' });
    await expect(apply(orderId, asBuyer(), { action: 'ship', shipment, items: [] })).rejects.toMatchObject({ code: 'action-not-allowed' });
    expect((await statusOf(orderId)).order).toBe('ACCEPTED');
  });

  it('ships line by line, and the order is SHIPPED with the shipment that leaves nothing ACCEPTED', async () => {
    const { orderId, itemIds } = await acceptedOrder();
    // A receipt before shipping: refused for the buyer, nothing to do for the timer.
    await expect(apply(orderId, asBuyer(), { action: 'receive' })).rejects.toMatchObject({ code: 'order-not-shipped' });
    expect(await apply(orderId, { role: 'system' }, { action: 'receive' })).toBeNull();

    // Every shipment is tracked; only the one leaving nothing ACCEPTED starts the receipt timer.
    expect(await apply(orderId, asSeller(), { action: 'ship', shipment, items: [{ id: itemIds[0]!, quantity: 1 }] })).toEqual({
      shipmentId: expect.any(String),
    });
    expect(await statusOf(orderId)).toEqual({ order: 'ACCEPTED', purchase: 'PAID', items: ['ACCEPTEDx1', 'ACCEPTEDx1', 'SHIPPEDx1'] });

    const rest = [
      { id: itemIds[0]!, quantity: 1 },
      { id: itemIds[1]!, quantity: 1 },
    ];
    expect(await apply(orderId, asSeller(), { action: 'ship', shipment, items: rest })).toEqual({
      shipmentId: expect.any(String),
      shippedOrderId: orderId,
    });
    expect(await statusOf(orderId)).toEqual({ order: 'SHIPPED', purchase: 'PAID', items: ['SHIPPEDx1', 'SHIPPEDx1', 'SHIPPEDx1'] });

    // Shipped items cannot be shipped again: one field error per item.
    await expect(apply(orderId, asSeller(), { action: 'ship', shipment, items: rest })).rejects.toMatchObject({
      code: 'invalid-items',
      extensions: { errors: [expect.objectContaining({ field: 'items.0.id' }), expect.objectContaining({ field: 'items.1.id' })] },
    });
  });

  it('receives a shipped order once, completing its purchase', async () => {
    const { orderId, purchaseId } = await insertPaidOrder(api.database.db, buyer.id, seller.id, [1]);
    expect(await apply(orderId, asBuyer(), { action: 'receive' })).toEqual({ receivedOrderId: orderId, completedPurchaseId: purchaseId });
    expect(await statusOf(orderId)).toEqual({ order: 'RECEIVED', purchase: 'COMPLETED', items: ['RECEIVEDx1'] });

    await expect(apply(orderId, asBuyer(), { action: 'receive' })).rejects.toMatchObject({ code: 'order-already-received' });
    expect(await apply(orderId, { role: 'system' }, { action: 'receive' })).toBeNull();
  });

  it("treats another party's order as missing", async () => {
    const { orderId } = await acceptedOrder();
    const stranger = await registerSeller(api);
    await expect(apply(orderId, { role: 'seller', userId: stranger.id }, { action: 'ship', shipment, items: [] })).rejects.toMatchObject({
      kind: 'not-found',
    });
  });
});

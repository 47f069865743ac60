import { offersWorkflowIds } from '../../src/modules/offers';
import { registerUser, type TestUser } from '../support/api';
import { ADDRESS, fillBasket, pay, sellerWithListings, settle } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

// The whole system (API, worker, start dispatcher, Temporal dev server, Postgres): an offer
// negotiated to a paid order, and the races an accepted offer's hold must win or lose cleanly.
let stack: TestStack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  stack = await startStack({ WORKFLOW_START_INTERVAL: '200ms', WEBHOOK_RETRY_SCHEDULE: '500ms,1s,1s' });
  receiver = await WebhookReceiver.start();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const api = () => stack.api;
const db = () => stack.api.database.db;

/** A new seller (GB delivery at 150p) with one listing that takes offers. */
async function offerListing(spec: { quantity: number; price: number }) {
  const { seller, listingIds, deliveryOptionId } = await sellerWithListings(api(), [spec]);
  await db().query(`UPDATE listings SET offers_enabled = true WHERE id = $1`, [listingIds[0]]);
  return { seller, listingId: listingIds[0]!, deliveryOptionId };
}

const makeOffer = (buyer: TestUser, listingId: string, unitPrice: number, quantity = 1) =>
  api().http.post('/user/offers').set(buyer.bearer).send({ listingId, quantity, unitPrice });
const sellerMove = (seller: TestUser, offerId: string, body: Record<string, unknown>) =>
  api().http.put(`/seller/offers/${offerId}`).set(seller.bearer).send(body);
const buyerMove = (buyer: TestUser, offerId: string, body: Record<string, unknown>) =>
  api().http.put(`/user/offers/${offerId}`).set(buyer.bearer).send(body);

async function stock(listingId: string) {
  const [row] = await db().query(
    `SELECT quantity, reserved, (SELECT coalesce(sum(quantity), 0)::int FROM order_items WHERE listing_id = $1) AS sold FROM listings WHERE id = $1`,
    [listingId],
  );
  return row as { quantity: number; reserved: number; sold: number };
}

const offerStatus = async (offerId: string) =>
  (
    (await db().query(`SELECT status, ended_reason FROM offers WHERE id = $1`, [offerId])) as Array<{
      status: string;
      ended_reason: string | null;
    }>
  )[0]!;

describe('an offer end to end', () => {
  it('offer → counter → accept → checkout → pay: an order at the agreed price, the events at the seller’s webhook endpoint', async () => {
    const { seller, listingId } = await offerListing({ quantity: 3, price: 12000 });
    await receiver.register(api(), seller, {
      subscriptions: ['OFFER_RECEIVED', 'OFFER_ACCEPTED', 'OFFER_DECLINED', 'OFFER_EXPIRED', 'ORDER_CREATED'],
    });
    const buyer = await registerUser(api(), 'e2eoffer');

    const made = await makeOffer(buyer, listingId, 9000, 2).expect(201);
    const offerId = made.body.id as string;
    const countered = await sellerMove(seller, offerId, { action: 'counter', unitPrice: 10500 }).expect(200);
    expect(countered.body).toMatchObject({ status: 'COUNTERED', unitPrice: 10500 });
    const accepted = await buyerMove(buyer, offerId, { action: 'accept' }).expect(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', unitPrice: 10500, quantity: 2 });
    expect(await stock(listingId)).toEqual({ quantity: 3, reserved: 2, sold: 0 });

    const checkout = await api()
      .http.post(`/user/offers/${offerId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok', deliveryAddress: ADDRESS })
      .expect(201);
    // Asking again answers the same open checkout.
    const again = await api()
      .http.post(`/user/offers/${offerId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok', deliveryAddress: ADDRESS })
      .expect(201);
    expect(again.body.url).toBe(checkout.body.url);
    await api().http.get(new URL(checkout.body.url).pathname).expect(200);
    const purchaseId = await pay(api(), checkout.body.url);

    const [order] = await db().query(
      `SELECT o.subtotal, o.delivery_charge, i.price, i.quantity FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.purchase_id = $1`,
      [purchaseId],
    );
    expect(order).toEqual({ subtotal: 21000, delivery_charge: 150, price: 10500, quantity: 2 });
    expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 0, sold: 2 });

    // The payment tells the workflow, which ends with the offer PAID.
    const final = await stack.env.client.workflow.getHandle(offersWorkflowIds.offer(offerId)).result();
    expect(final).toMatchObject({ status: 'PAID' });
    const view = await api().http.get(`/user/offers/${offerId}`).set(buyer.bearer).expect(200);
    expect(view.body).toMatchObject({ status: 'PAID', purchaseId, nextActions: [] });
    expect(view.body.history.map((h: { by: string; action: string }) => `${h.by}:${h.action}`)).toEqual([
      'BUYER:offer',
      'SELLER:counter',
      'BUYER:accept',
      'BUYER:pay',
    ]);

    const received = await eventually(async () => {
      const types = receiver.verified.filter(
        (r) => (r.payload.data as { offerId?: string }).offerId === offerId || r.payload.type === 'ORDER_CREATED',
      );
      return types.length >= 3 ? types : null;
    }, 30_000);
    expect(received.map((r) => r.payload.type).sort()).toEqual(['OFFER_ACCEPTED', 'OFFER_RECEIVED', 'ORDER_CREATED']);
    const acceptedEvent = received.find((r) => r.payload.type === 'OFFER_ACCEPTED')!;
    expect(acceptedEvent.payload.data).toMatchObject({
      sellerId: seller.id,
      offerId,
      listingId,
      buyerId: buyer.id,
      quantity: 2,
      unitPrice: 10500,
      status: 'ACCEPTED',
    });
  }, 60_000);
});

describe('races: 0 oversell, every loser a clear 409', () => {
  it('two buyers’ offers accepted at once with one unit left: one is ACCEPTED, the other 409 offer-stock-unavailable and stays open', async () => {
    const { seller, listingId } = await offerListing({ quantity: 1, price: 5000 });
    const [a, b] = await Promise.all([registerUser(api(), 'race'), registerUser(api(), 'race')]);
    const offers = [(await makeOffer(a!, listingId, 4000).expect(201)).body.id, (await makeOffer(b!, listingId, 4100).expect(201)).body.id];
    const answers = await Promise.all(offers.map((id) => sellerMove(seller, id, { action: 'accept' })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = answers.find((r) => r.status === 409)!;
    expect(loser.body.type).toBe('/problems/offer-stock-unavailable');
    expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 1, sold: 0 });
    const statuses = await Promise.all(offers.map(offerStatus));
    expect(statuses.map((s) => s.status).sort()).toEqual(['ACCEPTED', 'PENDING']);
  });

  it('accepting races a basket sale of the last unit: one wins, the loser is a 409; a completed sale ends the offer', async () => {
    for (let round = 0; round < 3; round++) {
      const { seller, listingId } = await offerListing({ quantity: 1, price: 5000 });
      const [offerer, shopper] = await Promise.all([registerUser(api(), 'race'), registerUser(api(), 'race')]);
      const offerId = (await makeOffer(offerer!, listingId, 4000).expect(201)).body.id as string;
      const basketId = await fillBasket(api(), shopper!, [{ listingId }]);
      const [accept, checkout] = await Promise.all([
        sellerMove(seller, offerId, { action: 'accept' }),
        api().http.post(`/basket/${basketId}/checkout`).set(shopper!.bearer).send({ successUrl: 'https://shop.example/ok' }),
      ]);
      expect([accept.status === 200, checkout.status === 201].filter(Boolean)).toHaveLength(1);
      const loser = accept.status === 409 ? accept : checkout;
      expect(['/problems/offer-stock-unavailable', '/problems/listings-unavailable']).toContain(loser.body.type);
      expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 1, sold: 0 });
      if (checkout.status === 201) {
        await pay(api(), checkout.body.url);
        expect(await stock(listingId)).toEqual({ quantity: 0, reserved: 0, sold: 1 });
        // The sale sold the listing out: the open offer ends with that notice.
        expect(await eventually(async () => ((await offerStatus(offerId)).status === 'DECLINED' ? offerStatus(offerId) : null))).toEqual({
          status: 'DECLINED',
          ended_reason: 'listing-sold-out',
        });
      } else {
        // The offer holds the unit: the shopper's basket cannot be checked out.
        const retry = await api()
          .http.post(`/basket/${basketId}/checkout`)
          .set(shopper!.bearer)
          .send({ successUrl: 'https://shop.example/ok' });
        expect(retry.status).toBe(409);
      }
    }
  }, 60_000);

  it('accepting races the listing’s deletion: one wins, the loser is a 409; a deletion ends the offer', async () => {
    for (let round = 0; round < 3; round++) {
      const { seller, listingId } = await offerListing({ quantity: 1, price: 5000 });
      const buyer = await registerUser(api(), 'race');
      const offerId = (await makeOffer(buyer, listingId, 4000).expect(201)).body.id as string;
      const [accept, removal] = await Promise.all([
        sellerMove(seller, offerId, { action: 'accept' }),
        api().http.delete(`/seller/listings/${listingId}`).set(seller.bearer),
      ]);
      const statuses = [accept.status, removal.status];
      expect(statuses.filter((s) => s === 409)).toHaveLength(1);
      if (removal.status === 204) {
        // Refused by the write (the listing is gone) or, once the deletion's notice ended the offer, by the validator.
        expect(['/problems/offer-listing-ended', '/problems/offer-closed']).toContain(accept.body.type);
        expect(await eventually(async () => ((await offerStatus(offerId)).status === 'DECLINED' ? offerStatus(offerId) : null))).toEqual({
          status: 'DECLINED',
          ended_reason: 'listing-deleted',
        });
        expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 0, sold: 0 });
      } else {
        expect(removal.body.type).toBe('/problems/listing-locked');
        expect(accept.body.status).toBe('ACCEPTED');
        expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 1, sold: 0 });
      }
    }
  }, 60_000);

  it('a failed payment releases the hold; a new checkout holds the unit again until payBy', async () => {
    const { seller, listingId } = await offerListing({ quantity: 1, price: 5000 });
    const buyer = await registerUser(api(), 'race');
    const offerId = (await makeOffer(buyer, listingId, 4000).expect(201)).body.id as string;
    await sellerMove(seller, offerId, { action: 'accept' }).expect(200);
    const body = { successUrl: 'https://shop.example/ok', deliveryAddress: ADDRESS };
    const first = await api().http.post(`/user/offers/${offerId}/checkout`).set(buyer.bearer).send(body).expect(201);
    await settle(api(), first.body.url, 'failure');
    expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 0, sold: 0 });
    const second = await api().http.post(`/user/offers/${offerId}/checkout`).set(buyer.bearer).send(body).expect(201);
    expect(second.body.url).not.toBe(first.body.url);
    expect(await stock(listingId)).toEqual({ quantity: 1, reserved: 1, sold: 0 });
  });
});

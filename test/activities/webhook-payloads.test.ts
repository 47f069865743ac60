import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { type ValidateFunction } from 'ajv';
import { createWebhookActivities } from '../../activities/webhooks';
import { EVENT_TYPES } from '../../src/services/events/outbox';
import { TEST_EVENT_TYPE } from '../../src/services/webhooks/endpoints';
import { WebhookDeliveryAttempts } from '../../src/services/webhooks/delivery-attempts';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { insertPaidOrder } from '../support/cases';
import { insertListing, seedCatalog } from '../support/fixtures';
import { WebhookReceiver } from '../support/webhook-receiver';

// What the OpenAPI document's `webhooks` promise is what a receiver gets: events written by the
// service's own code paths (API routes, the order engine), delivered over HTTP by the attempt
// activity, then checked against the published schemas with a JSON Schema validator.

let api: TestApi;
let receiver: WebhookReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

type Json = Record<string, unknown>;
interface WebhookOperation {
  parameters: Array<{ name: string; in: string; required: boolean; schema: Json }>;
  requestBody: { content: { 'application/json': { schema: Json } } };
}

/** The served document with every `$ref` resolved, so each webhook's schemas stand alone. */
async function webhooks(): Promise<Record<string, { post: WebhookOperation }>> {
  const doc = (await api.http.get('/openapi.json').expect(200)).body;
  const resolved = (await SwaggerParser.dereference(doc)) as unknown as { webhooks: Record<string, { post: WebhookOperation }> };
  return resolved.webhooks;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const validator = (schema: Json): ValidateFunction =>
  // Ajv's default draft covers every keyword these schemas use (no 2020-12-only ones); OpenAPI's
  // own keywords (`discriminator`, …) are not JSON Schema's, hence not strict.
  new Ajv({ allErrors: true, strict: false }).addFormat('date-time', ISO_DATE_TIME).compile(schema);

describe("the document's webhooks", () => {
  it('has an entry for every event type the service can emit, and the test event; nothing else', async () => {
    const published = await webhooks();
    // `emitEvents` takes only EVENT_TYPES (its type parameter), so this list is every type emitted.
    expect(Object.keys(published).sort()).toEqual([...EVENT_TYPES, TEST_EVENT_TYPE].sort());
    for (const [type, { post }] of Object.entries(published)) {
      const body = post.requestBody.content['application/json'].schema as { properties: Json; required: string[] };
      expect([type, body.required.sort(), (body.properties.type as Json).const]).toEqual([type, ['data', 'type'], type]);
      expect([type, post.parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name)]).toEqual([
        type,
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      ]);
    }
  });

  it('describes what is delivered: real payloads of six types validate against their published schema', async () => {
    const published = await webhooks();
    const { items } = await seedCatalog(api.database.db, { names: ['Gengar'] });
    const [seller, buyer] = await Promise.all([registerSeller(api, 'whseller'), registerUser(api, 'whbuyer')]);
    const endpoint = await receiver.register(api, seller, { subscriptions: [...EVENT_TYPES] });

    // LISTING_CREATED, LISTING_UPDATED, LISTING_DELETED through the seller's routes.
    const listing = { urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: 1250, quantity: 3 };
    const created = await api.http.post('/seller/listings').set(seller.bearer).send(listing).expect(201);
    await api.http
      .put(`/seller/listings/${created.body.id}`)
      .set(seller.bearer)
      .send({ ...listing, price: 999 })
      .expect(200);
    await api.http.delete(`/seller/listings/${created.body.id}`).set(seller.bearer).expect(204);
    // OFFER_RECEIVED through the buyer's route.
    const offered = await insertListing(api.database.db, {
      sellerId: seller.id,
      itemUrn: items[0]!.urn,
      price: 5000,
      quantity: 1,
      offersEnabled: true,
    });
    await api.http.post('/user/offers').set(buyer.bearer).send({ listingId: offered.id, quantity: 1, unitPrice: 4000 }).expect(201);
    // ORDER_UPDATED through the order engine: the seller ships an accepted order.
    const { orderId, itemIds } = await insertPaidOrder(api.database.db, buyer.id, seller.id, [1]);
    await api.database.db.query(`UPDATE orders SET status = 'ACCEPTED' WHERE id = $1`, [orderId]);
    await api.database.db.query(`UPDATE order_items SET status = 'ACCEPTED' WHERE order_id = $1`, [orderId]);
    await api.http
      .post(`/seller/orders/${orderId}`)
      .set(seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'Post', trackingNumber: 'SIM-1' }, items: [{ id: itemIds[0], quantity: 1 }] })
      .expect(204);
    // TEST_WEBHOOK through the test route.
    await api.http.post(`/seller/webhooks/${endpoint.id}/test`).set(seller.bearer).expect(202);

    const attempts = createWebhookActivities({
      webhookAttempts: new WebhookDeliveryAttempts(api.database.db, {
        secretKey: api.config.webhooks.secretKey,
        allowPrivateUrls: true,
        disableAfterMs: 86_400_000,
      }),
    });
    const events: Array<{ id: string; type: string }> = await api.database.db.query(
      `SELECT id, type FROM outbox_events WHERE seller_id = $1 ORDER BY created_at, id`,
      [seller.id],
    );
    for (const event of events) {
      const result = await attempts.attemptWebhookDelivery({
        eventId: event.id,
        endpointId: endpoint.id,
        finalAttempt: false,
        timeoutMs: 2000,
      });
      expect([event.type, result]).toEqual([event.type, { outcome: 'delivered' }]);
    }

    const delivered = receiver.verified.filter((r) => r.payload.data.sellerId === seller.id);
    expect(new Set(delivered.map((r) => r.payload.type))).toEqual(
      new Set(['LISTING_CREATED', 'LISTING_UPDATED', 'LISTING_DELETED', 'OFFER_RECEIVED', 'ORDER_UPDATED', 'TEST_WEBHOOK']),
    );
    for (const got of delivered) {
      const { post } = published[got.payload.type]!;
      const validate = validator(post.requestBody.content['application/json'].schema);
      expect([got.payload.type, validate(JSON.parse(got.body)) ? [] : validate.errors]).toEqual([got.payload.type, []]);
      for (const header of post.parameters) {
        const value = got.headers[header.name];
        const validHeader = validator(header.schema);
        expect([header.name, validHeader(value) ? [] : validHeader.errors]).toEqual([header.name, []]);
      }
    }

    // The check has teeth: a field too many, one missing, or a body of another type is refused.
    const listingUpdated = validator(published.LISTING_UPDATED!.post.requestBody.content['application/json'].schema);
    const sample = JSON.parse(delivered.find((r) => r.payload.type === 'LISTING_UPDATED')!.body);
    expect(listingUpdated(sample)).toBe(true);
    expect(listingUpdated({ ...sample, data: { ...sample.data, stock: 1 } })).toBe(false);
    const { price: _price, ...withoutPrice } = sample.data;
    expect(listingUpdated({ ...sample, data: withoutPrice })).toBe(false);
    expect(listingUpdated({ ...sample, type: 'LISTING_CREATED' })).toBe(false);
  });
});

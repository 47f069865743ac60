import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerUser, startTestApi } from '../support/api';
import { insertPaidOrder } from '../support/cases';
import { createTestDatabase } from '../support/database';
import { apiClient, dataOf, expectStatus, rawText } from '../support/client';
import { checkoutUrl, fillBasket, pay, sellerWithListings } from '../support/shop';
import { eventually } from '../support/stack';
import { devServerEnv, freePort, workflowBundle } from '../support/temporal';

/**
 * Temporal is down while a purchase is shipped and received, a dispute opened and an import made:
 * every request succeeds, every workflow waits in the start outbox, and once Temporal is up each
 * one starts exactly once (a second dispatch of the same intents starts nothing new).
 */
it('Temporal down delays workflow starts, never loses or doubles them', async () => {
  const port = await freePort();
  const database = await createTestDatabase();
  const api = await startTestApi({ database, env: { REVIEW_WINDOW_SECONDS: '2' } });
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
  // The dispatcher's client points at the address where Temporal will come up.
  const temporal = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${port}`, connectTimeout: '1s' }) });
  const config = { ...api.config, starts: { ...api.config.starts, intervalMs: 200, retryMaxMs: 1000 } };
  const dispatcher = createStartDispatcher(config, database.db, temporal, log);
  let env: TestWorkflowEnvironment | undefined;
  try {
    dispatcher.start();
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 1000 }]);
    // A checkout and its payment start nothing (holds expire by a sweep, docs/checkout-orders.md).
    const buyer = await registerUser(api);
    const purchaseId = await pay(api, await checkoutUrl(api, buyer, await fillBasket(api, buyer, [{ listingId: listingIds[0]! }])));
    // Shipped (receipt timer, shipment tracking), then received: the purchase completes (review window).
    const asSeller = apiClient(api, seller.bearer);
    const [order] = await dataOf(asSeller.GET('/seller/orders'));
    const { items } = await dataOf(asSeller.GET('/seller/orders/{id}', { params: { path: { id: order!.id } } }));
    await expectStatus(
      asSeller.POST('/seller/orders/{id}', {
        params: { path: { id: order!.id } },
        body: {
          action: 'ship',
          shipment: { carrier: 'RM', trackingNumber: 'RM1' },
          items: [{ id: items[0]!.id, quantity: items[0]!.quantity }],
        },
      }),
      204,
    );
    // The shipment is tracked from the moment it exists.
    const [{ id: shipmentId }] = await database.db.query(`SELECT id FROM shipments WHERE order_id = $1`, [order!.id]);
    await expectStatus(
      apiClient(api, buyer.bearer).PUT('/user/purchases/{id}', {
        params: { path: { id: purchaseId } },
        body: { action: 'receive', orderId: order!.id },
      }),
      200,
    );
    // A dispute (case workflow) and a CSV import.
    const disputed = await insertPaidOrder(database.db, buyer.id, seller.id);
    await expectStatus(
      asSeller.POST('/seller/orders/{id}', {
        params: { path: { id: disputed.orderId } },
        body: { action: 'dispute', reason: 'SNAD', items: [{ id: disputed.itemIds[0]!, quantity: 1 }] },
      }),
      204,
    );
    const [{ id: caseId }] = await database.db.query(`SELECT id FROM cases WHERE order_id = $1`, [disputed.orderId]);
    const imported = await dataOf(
      asSeller.POST('/seller/imports', {
        body: 'urn,condition,language,price,quantity\nurn:mts:card:none,MINT,en,100,1\n',
        ...rawText('text/csv'),
      }),
      202,
    );

    const expected = [
      `order-receipt:${order!.id}`,
      `funds-release:${order!.id}`,
      `shipment-tracking:${shipmentId}`,
      `review-window:${purchaseId}`,
      `case:${caseId}`,
      `import:${imported.id}`,
    ].sort();

    // While Temporal is down every start fails, is recorded and waits.
    await eventually(async () => (warnings.some((w) => w.includes('workflow starts failed')) ? true : null), 60_000);
    await eventually(async () => {
      const [{ tried }] = await database.db.query(
        `SELECT count(*)::int AS tried FROM workflow_starts WHERE attempts > 0 AND last_error IS NOT NULL`,
      );
      return tried >= expected.length ? true : null;
    }, 60_000);
    const pending: Array<{ workflow_id: string }> = await database.db.query(
      `SELECT DISTINCT workflow_id FROM workflow_starts WHERE started_at IS NULL`,
    );
    expect(pending.map((p) => p.workflow_id).sort()).toEqual(expected);

    // Temporal comes up where the dispatcher has been knocking: everything starts.
    env = await devServerEnv({ port });
    const worker = await createWorker({
      config: api.config,
      db: database.db,
      connection: env.nativeConnection,
      workflowBundle: await workflowBundle(),
    });
    await worker.runUntil(async () => {
      await eventually(async () => {
        const [{ left }] = await database.db.query(`SELECT count(*)::int AS left FROM workflow_starts WHERE started_at IS NULL`);
        return left === 0 ? true : null;
      }, 90_000);
      // The review window ran its 2 seconds.
      expect(await env!.client.workflow.getHandle(`review-window:${purchaseId}`).result()).toBe(2);

      // A lost stamp makes the dispatcher start everything again: nothing runs twice.
      await database.db.query(`UPDATE workflow_starts SET started_at = NULL, next_attempt_at = now()`);
      await eventually(async () => {
        const [{ left }] = await database.db.query(`SELECT count(*)::int AS left FROM workflow_starts WHERE started_at IS NULL`);
        return left === 0 ? true : null;
      }, 30_000);
    });
    for (const workflowId of expected) {
      const runs = await eventually(async () => {
        const found = [];
        for await (const w of env!.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) found.push(w.runId);
        return found.length > 0 ? found : null;
      });
      expect({ workflowId, runs: runs.length }).toEqual({ workflowId, runs: 1 });
    }
  } finally {
    await dispatcher.stop();
    await temporal.connection.close();
    await api.close();
    await database.close();
    await env?.teardown();
  }
}, 240_000);

import { createLogger } from '../../src/logger';
import { webhookFanOut } from '../../src/services/webhooks/fan-out';
import { emailChangeStart } from '../../src/modules/account';
import { listingImportStart } from '../../src/modules/listings';
import { orderStarts } from '../../src/modules/orders';
import { webhookDeliveryStart } from '../../src/modules/webhooks';
import { requestWorkflowStart, requestWorkflowStarts, type WorkflowStart } from '../../src/services/workflow-starts';
import { StartDispatcher, type StartExecutor } from '../../src/services/workflow-starts/dispatcher';
import { emitEvents } from '../../src/services/events/outbox';
import { newId } from '../../src/ids';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { createListing, listingEventData } from '../support/listings';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Any seller: the builder only names it in the summary and a search attribute. */
const SELLER_ID = newId();
const POLICY = { retryScheduleMs: [1000], attemptTimeoutMs: 1000 };

/** Records what it was asked to start; `fail` decides which starts throw. */
function recordingExecutor(fail: (s: WorkflowStart) => boolean = () => false) {
  const calls: WorkflowStart[] = [];
  /** Whether each call was allowed to start eagerly, in call order. */
  const eager: boolean[] = [];
  const executor: StartExecutor = {
    execute: async (s, how) => {
      calls.push(s);
      eager.push(how.eager);
      if (fail(s)) throw new Error(`Temporal refused ${s.workflowId}`);
      return 'started';
    },
  };
  return { calls, eager, executor };
}

const dispatcherWith = (executor: StartExecutor, feeders = [] as Array<() => Promise<number>>, batchSize?: number) =>
  new StartDispatcher({
    db: api.database.db,
    databaseUrl: api.database.url,
    executor,
    feeders,
    intervalMs: 50,
    retryMaxMs: 60_000,
    log: createLogger('silent', 'start-dispatcher-test'),
    ...(batchSize ? { batchSize } : {}),
  });

const request = (start: WorkflowStart) => api.database.db.transaction((tx) => requestWorkflowStart(tx, start));

interface Row {
  request_key: string;
  started_at: Date | null;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
}
const rowsOf = (workflowId: string): Promise<Row[]> =>
  api.database.db.query(
    `SELECT request_key, started_at, attempts, last_error, next_attempt_at FROM workflow_starts WHERE workflow_id = $1 ORDER BY id`,
    [workflowId],
  );

/** Earlier tests' rows must not leak into a pass: mark everything pending as started. */
beforeEach(() => api.database.db.query(`UPDATE workflow_starts SET started_at = now() WHERE started_at IS NULL`));

describe('requestWorkflowStart', () => {
  it('writes one intent per workflow id and request key, and none when the transaction rolls back', async () => {
    const importId = newId();
    expect(await request(listingImportStart(importId, SELLER_ID))).toBe(true);
    expect(await request(listingImportStart(importId, SELLER_ID))).toBe(false);
    const rolledBack = newId();
    await expect(
      api.database.db.transaction(async (tx) => {
        await requestWorkflowStart(tx, listingImportStart(rolledBack, SELLER_ID));
        throw new Error('the business change failed');
      }),
    ).rejects.toThrow('the business change failed');
    expect(await rowsOf(`import:${importId}`)).toHaveLength(1);
    expect(await rowsOf(`import:${rolledBack}`)).toHaveLength(0);
  });

  it('keeps a signal-with-start beside the start of the same workflow', async () => {
    const orderId = newId();
    await request(orderStarts.orderReceipt(orderId, 60));
    await request(orderStarts.orderDelivered(orderId, 60, 10));
    await request(orderStarts.orderDelivered(orderId, 60, 10));
    expect((await rowsOf(`order-receipt:${orderId}`)).map((r) => r.request_key)).toEqual(['', 'orderDelivered']);
  });
});

describe('StartDispatcher.dispatchBatch (real Postgres, recorded starts)', () => {
  it('starts every pending intent once and stamps it', async () => {
    const ids = [newId(), newId(), newId()];
    for (const id of ids) await request(emailChangeStart(id));
    const { calls, executor } = recordingExecutor();
    expect(await dispatcherWith(executor).dispatchBatch()).toBe(3);
    expect(calls.map((c) => c.workflowId).sort()).toEqual(ids.map((id) => `email-change:${id}`).sort());
    expect(calls[0]).toMatchObject({ workflowType: 'emailChangeWorkflow', options: { reusePolicy: 'REJECT_DUPLICATE' } });
    for (const id of ids)
      expect(await rowsOf(`email-change:${id}`)).toEqual([
        expect.objectContaining({ attempts: 1, last_error: null, started_at: expect.any(Date) }),
      ]);
    // Nothing left: a second pass starts nothing.
    expect(await dispatcherWith(recordingExecutor().executor).dispatchBatch()).toBe(0);
  });

  it('allows eager starts only for a pass that empties the outbox, not in a backlog', async () => {
    for (let n = 0; n < 3; n += 1) await request(emailChangeStart(newId()));
    const { eager, executor } = recordingExecutor();
    const dispatcher = dispatcherWith(executor, [], 2);
    expect(await dispatcher.dispatchBatch()).toBe(2);
    expect(await dispatcher.dispatchBatch()).toBe(1);
    expect(eager).toEqual([false, false, true]);
  });

  it('records a failed start (attempts, last_error, a later next attempt) while the rest of the batch starts', async () => {
    const bad = newId();
    const good = newId();
    await request(listingImportStart(bad, SELLER_ID));
    await request(listingImportStart(good, SELLER_ID));
    const { executor } = recordingExecutor((s) => s.workflowId === `import:${bad}`);
    await dispatcherWith(executor).dispatchBatch();

    const [failed] = await rowsOf(`import:${bad}`);
    expect(failed).toMatchObject({ started_at: null, attempts: 1, last_error: `Error: Temporal refused import:${bad}` });
    expect(failed!.next_attempt_at.getTime()).toBeGreaterThan(Date.now());
    expect((await rowsOf(`import:${good}`))[0]!.started_at).toBeInstanceOf(Date);

    // Not retried before its time: the next pass leaves it alone.
    const idle = recordingExecutor();
    await dispatcherWith(idle.executor).dispatchBatch();
    expect(idle.calls).toHaveLength(0);

    // Once due, it starts; the failure history stays for the record.
    await api.database.db.query(`UPDATE workflow_starts SET next_attempt_at = now() WHERE workflow_id = $1`, [`import:${bad}`]);
    const retry = recordingExecutor();
    await dispatcherWith(retry.executor).dispatchBatch();
    expect(retry.calls.map((c) => c.workflowId)).toEqual([`import:${bad}`]);
    expect((await rowsOf(`import:${bad}`))[0]).toMatchObject({ attempts: 2, started_at: expect.any(Date) });
  });

  it('keeps starting the rest of a batch while one start is slow', async () => {
    const ids = Array.from({ length: 100 }, () => newId());
    for (const id of ids) await request(emailChangeStart(id));
    const slow = `email-change:${ids[0]}`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const done: string[] = [];
    const executor: StartExecutor = {
      execute: async (s) => {
        if (s.workflowId === slow) await released;
        done.push(s.workflowId);
        return 'started';
      },
    };
    // A batch of 100, well over the 32 lanes, however small the default batch is.
    const pass = dispatcherWith(executor, [], 100).dispatchBatch();
    // The other 99 all start while the slow one is still waiting: with starts made in fixed
    // waves of 32, the 68 after the slow one's wave waited for it.
    const deadline = Date.now() + 10_000;
    while (done.length < 99 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    try {
      expect(done).toHaveLength(99);
      expect(done).not.toContain(slow);
    } finally {
      release(); // the pass holds a transaction open until its starts settle
    }
    expect(await pass).toBe(100);
    expect(done).toContain(slow);
    expect((await rowsOf(slow))[0]!.started_at).toBeInstanceOf(Date);
  });

  it('makes the requests of one workflow in order, and holds a signal back while its start fails', async () => {
    const orderId = newId();
    await request(orderStarts.orderReceipt(orderId, 60));
    await request(orderStarts.orderDelivered(orderId, 60, 10));
    const failing = recordingExecutor(() => true);
    await dispatcherWith(failing.executor).dispatchBatch();
    // Only the start was tried; the signal waits with it.
    expect(failing.calls.map((c) => c.requestKey)).toEqual(['']);
    expect((await rowsOf(`order-receipt:${orderId}`)).map((r) => r.started_at)).toEqual([null, null]);

    await api.database.db.query(`UPDATE workflow_starts SET next_attempt_at = now() WHERE workflow_id = $1`, [`order-receipt:${orderId}`]);
    const ok = recordingExecutor();
    await dispatcherWith(ok.executor).dispatchBatch();
    expect(ok.calls.map((c) => [c.requestKey, c.options?.signal?.name])).toEqual([
      ['', undefined],
      ['orderDelivered', 'orderDelivered'],
    ]);
  });

  it('fans outbox events out to one delivery intent per subscribed endpoint, once', async () => {
    const seller = await registerSeller(api);
    const endpoints: string[] = [];
    for (const subscriptions of [['LISTING_CREATED'], ['LISTING_CREATED'], ['ORDER_UPDATED']]) {
      const res = await api.http
        .post('/seller/webhooks')
        .set(seller.bearer)
        .send({ url: 'http://127.0.0.1:9/hook', subscriptions })
        .expect(201);
      endpoints.push(res.body.id);
    }
    const { eventId } = await createListing(api.database.db, seller.id);
    const { calls, executor } = recordingExecutor();
    const dispatcher = dispatcherWith(executor, [webhookFanOut(api.database.db, POLICY, webhookDeliveryStart)]);
    await dispatcher.dispatchBatch();
    const mine = calls.filter((c) => c.workflowId.startsWith(`webhook:${eventId}:`));
    expect(mine.map((c) => c.workflowId).sort()).toEqual(
      [`webhook:${eventId}:${endpoints[0]}`, `webhook:${eventId}:${endpoints[1]}`].sort(),
    );
    expect(mine[0]!.args).toEqual([expect.objectContaining({ eventId, policy: POLICY })]);
    const [{ dispatched_at }] = await api.database.db.query(`SELECT dispatched_at FROM outbox_events WHERE id = $1`, [eventId]);
    expect(dispatched_at).toBeInstanceOf(Date);
    // The event does not fan out again.
    const again = recordingExecutor();
    await dispatcherWith(again.executor, [webhookFanOut(api.database.db, POLICY, webhookDeliveryStart)]).dispatchBatch();
    expect(again.calls.filter((c) => c.workflowId.startsWith(`webhook:${eventId}:`))).toHaveLength(0);
  });

  it('wakes at commit through NOTIFY, long before its poll interval', async () => {
    const { calls, executor } = recordingExecutor();
    const dispatcher = new StartDispatcher({
      db: api.database.db,
      databaseUrl: api.database.url,
      executor,
      intervalMs: 60_000,
      retryMaxMs: 60_000,
      log: createLogger('silent', 'start-dispatcher-test'),
    });
    dispatcher.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // its first (empty) pass and LISTEN
      const id = newId();
      const committedAt = Date.now();
      await request(emailChangeStart(id));
      while (!calls.some((c) => c.workflowId === `email-change:${id}`)) {
        expect(Date.now() - committedAt).toBeLessThan(5000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await dispatcher.stop();
    }
  });
});

describe('fairness (docs/webhooks.md, "Fairness")', () => {
  const delivery = (sellerId: string) =>
    webhookDeliveryStart({ id: newId(), type: 'LISTING_CREATED', sellerId }, newId(), POLICY, { replay: false });

  it("claims intents round-robin across fairness keys: one seller's backlog does not hold up another's start", async () => {
    const [burst, single] = [newId(), newId()];
    await api.database.db.transaction((tx) =>
      requestWorkflowStarts(
        tx,
        Array.from({ length: 300 }, () => delivery(burst)),
      ),
    );
    const lone = delivery(single);
    await request(lone);
    const unkeyed = newId();
    await request(emailChangeStart(unkeyed));

    const { calls, executor } = recordingExecutor();
    expect(await dispatcherWith(executor, [], 10).dispatchBatch()).toBe(10);
    // Oldest first would have taken ten of the burst; round-robin takes each class's oldest first.
    expect(
      calls
        .slice(0, 3)
        .map((c) => c.workflowId)
        .sort(),
    ).toEqual([calls.find((c) => c.fairnessKey === burst)!.workflowId, lone.workflowId, `email-change:${unkeyed}`].sort());
    expect(calls.filter((c) => c.fairnessKey === burst)).toHaveLength(8);
    // The key travels to the executor (Temporal's fairness key); an unkeyed start carries none.
    expect(calls.find((c) => c.workflowId === lone.workflowId)!.fairnessKey).toBe(single);
    expect(calls.find((c) => c.workflowId === `email-change:${unkeyed}`)!.fairnessKey).toBeUndefined();
    // Within a key, oldest first: the burst's intents start in the order written.
    const [{ ids }] = await api.database.db.query(
      `SELECT array_agg(workflow_id ORDER BY id) AS ids FROM workflow_starts WHERE fairness_key = $1 AND started_at IS NOT NULL`,
      [burst],
    );
    expect(calls.filter((c) => c.fairnessKey === burst).map((c) => c.workflowId)).toEqual(ids);
  });

  it("skips a key's intents that are backing off, and starts its due ones and every other key's", async () => {
    const [failing, other] = [newId(), newId()];
    const failingStarts = Array.from({ length: 5 }, () => delivery(failing));
    await api.database.db.transaction((tx) => requestWorkflowStarts(tx, failingStarts));
    const lone = delivery(other);
    await request(lone);
    // The failing seller's three oldest intents wait out a back-off; its two newest are due.
    const backingOff = failingStarts.slice(0, 3).map((s) => s.workflowId);
    await api.database.db.query(
      `UPDATE workflow_starts SET next_attempt_at = now() + interval '1 hour', attempts = 1 WHERE workflow_id = ANY ($1)`,
      [backingOff],
    );

    const { calls, executor } = recordingExecutor();
    expect(await dispatcherWith(executor, [], 10).dispatchBatch()).toBe(3);
    expect(calls.map((c) => c.workflowId).sort()).toEqual([...failingStarts.slice(3).map((s) => s.workflowId), lone.workflowId].sort());
    const [{ waiting }] = await api.database.db.query(
      `SELECT count(*)::int AS waiting FROM workflow_starts WHERE workflow_id = ANY ($1) AND started_at IS NULL`,
      [backingOff],
    );
    expect(waiting).toBe(3);
  });

  it("fans events out round-robin across sellers: a seller's single event starts in the first pass despite another's backlog", async () => {
    const [big, small] = [await registerSeller(api), await registerSeller(api)];
    for (const seller of [big, small])
      await api.http
        .post('/seller/webhooks')
        .set(seller.bearer)
        .send({ url: 'http://127.0.0.1:9/hook', subscriptions: ['LISTING_CREATED'] })
        .expect(201);
    await api.database.db.transaction((tx) =>
      emitEvents(
        tx,
        'LISTING_CREATED',
        Array.from({ length: 300 }, (_, n) => listingEventData(big.id, n)),
      ),
    );
    const [single] = await api.database.db.transaction((tx) => emitEvents(tx, 'LISTING_CREATED', [listingEventData(small.id, 0)]));

    const { calls, executor } = recordingExecutor();
    try {
      // One pass: fan out 50 events, start 50 intents. Oldest first, the single event would wait six passes.
      await dispatcherWith(executor, [webhookFanOut(api.database.db, POLICY, webhookDeliveryStart, 50)], 50).dispatchBatch();
      expect(calls).toHaveLength(50);
      expect(calls.filter((c) => c.workflowId.startsWith(`webhook:${single}:`))).toEqual([
        expect.objectContaining({ fairnessKey: small.id }),
      ]);
      expect(calls.filter((c) => c.fairnessKey === big.id)).toHaveLength(49);
    } finally {
      await api.database.db.query(`UPDATE outbox_events SET dispatched_at = now() WHERE seller_id = $1`, [big.id]);
    }
  });
});

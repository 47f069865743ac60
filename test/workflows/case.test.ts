import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { QueryFailedError } from 'typeorm';
import type { CaseActivities, CaseChange } from '../../activities/cases';
import { classifyFailures } from '../../activities/failures';
import type { EmailActivities } from '../../activities/email';
import { caseWorkflow } from '../../workflows/case';
import {
  acceptUpdate,
  caseRefusalOf,
  caseStateQuery,
  escalateUpdate,
  operatorDecisionUpdate,
  orderCancelledSignal,
  proposeUpdate,
  rejectUpdate,
  resolveUpdate,
} from '../../workflows/contracts/case';
import type { OutcomeState } from '../../src/domain/cases/machine';
import { FAILURE_MEMO } from '../../workflows/bounded-activities';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { devServerEnv, timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

const DAY = 86_400_000;
const QUEUE = 'test-case';

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
/** Every change the workflows asked the (stubbed) activity to write, and the e-mails delivered. */
let changes: CaseChange[] = [];
let delivered: string[] = [];

/** How many times the stub was asked to write a change it cannot (comment `unreachable`). */
let unreachableCalls = 0;

// Classified as the worker's activities are; a comment with NUL is refused as Postgres refuses it.
const activities = (): CaseActivities & Pick<EmailActivities, 'deliverEmail'> =>
  classifyFailures({
    recordCaseChange: async (change: CaseChange) => {
      if (change.proposal?.comment.includes('\0')) {
        throw new QueryFailedError(
          'INSERT INTO case_outcomes …',
          [],
          Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }),
        );
      }
      if (change.proposal?.comment === 'unreachable') {
        unreachableCalls += 1;
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      }
      changes.push(change);
      return { messageIds: [`msg-${change.changeId}`], completedPurchaseId: null };
    },
    deliverEmail: async (id: string) => void delivered.push(id),
  });

beforeAll(async () => {
  env = await timeSkippingEnv();
  worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: QUEUE,
    workflowBundle: await workflowBundle(),
    activities: activities(),
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});
beforeEach(() => {
  changes = [];
  delivered = [];
});

let counter = 0;
async function open(outcomes: OutcomeState[] = [], queue = QUEUE, on = env): Promise<WorkflowHandle<typeof caseWorkflow>> {
  counter += 1;
  const caseId = `case-${counter}`;
  return on.client.workflow.start(caseWorkflow, {
    workflowId: `case:${caseId}`,
    taskQueue: queue,
    args: [{ caseId, outcomes, autoEscalateAfterMs: 7 * DAY, indexed: false }],
  });
}

const refund = { type: 'REFUND' as const, amount: 500, comment: 'half back', deliveryAddress: null };
const returnTo = {
  type: 'RETURN' as const,
  amount: 1000,
  comment: 'send it back',
  deliveryAddress: { name: 'Shop', line1: '2 Dock Rd', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' },
};

/** A refused Update's typed refusal, as `kind:code`. */
async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure))
    throw new Error(`expected a refused update, got ${String(err)}`);
  const r = caseRefusalOf(err.cause);
  if (!r) throw new Error(`expected a case refusal, got ${err.cause.type}`);
  return `${r.kind}:${r.code}`;
}

describe('caseWorkflow', () => {
  it('refuses a change the database refuses, shows the failure, and both parties can still act', async () => {
    const h = await open();
    const refused = await refusal(h.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...refund, comment: 'c\u0000' }] }));
    expect(refused).toBe('invalid:change-refused');
    expect(await h.query(caseStateQuery)).toEqual({ status: 'OPEN', outcomes: [] });
    const { memo } = await h.describe();
    expect(memo?.[FAILURE_MEMO]).toMatchObject({ activity: 'recordCaseChange', message: expect.stringMatching(/0x00/) });

    const { outcomes } = await h.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...refund }] });
    const closed = await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: outcomes[0]!.id }] });
    expect(closed.status).toBe('CLOSED');
    await h.result();
    expect(changes.map((c) => [c.kind, c.actor])).toEqual([
      ['propose', 'SELLER'],
      ['accept', 'BUYER'],
    ]);
  });

  it('gives up on a write that keeps failing after a bounded number of attempts, and the case stays actionable', async () => {
    const h = await open();
    unreachableCalls = 0;
    const pending = refusal(h.executeUpdate(proposeUpdate, { args: [{ party: 'BUYER', ...refund, comment: 'unreachable' }] }));
    // Waiting on an Update does not skip time; the retries' back-off (~6 minutes) is skipped here.
    await env.sleep('10 minutes');
    expect(await pending).toBe('unavailable:change-not-recorded');
    expect(unreachableCalls).toBe(10);
    expect(await h.query(caseStateQuery)).toEqual({ status: 'OPEN', outcomes: [] });
    const escalated = await h.executeUpdate(escalateUpdate, { args: [{ party: 'BUYER' }] });
    expect(escalated.status).toBe('ESCALATED');
    await h.executeUpdate(operatorDecisionUpdate, { args: [{ decision: 'close' }] });
    await h.result();
  });

  it('records a proposal as PENDING without changing the status, then CLOSED when the other party accepts a REFUND', async () => {
    const h = await open();
    const proposed = await h.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...refund }] });
    expect(proposed.status).toBe('OPEN');
    expect(proposed.outcomes).toEqual([{ id: expect.any(String), type: 'REFUND', party: 'SELLER', status: 'PENDING' }]);
    const accepted = await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: proposed.outcomes[0]!.id }] });
    expect(accepted.status).toBe('CLOSED');
    expect(await h.result()).toEqual(accepted);
    expect(changes.map((c) => [c.kind, c.actor, c.status])).toEqual([
      ['propose', 'SELLER', 'OPEN'],
      ['accept', 'BUYER', 'CLOSED'],
    ]);
    expect(changes[0]!.proposal).toEqual({ id: proposed.outcomes[0]!.id, ...refund });
    expect(delivered).toHaveLength(2);
  });

  it('closes when a REPLACEMENT proposed at opening is accepted', async () => {
    const h = await open([{ id: 'o-1', type: 'REPLACEMENT', party: 'BUYER', status: 'PENDING' }]);
    const state = await h.executeUpdate(acceptUpdate, { args: [{ party: 'SELLER', outcomeId: 'o-1' }] });
    expect(state).toEqual({ status: 'CLOSED', outcomes: [{ id: 'o-1', type: 'REPLACEMENT', party: 'BUYER', status: 'ACCEPTED' }] });
  });

  it('settles an accepted RETURN, and closes it when the seller resolves the return', async () => {
    const h = await open();
    const { outcomes } = await h.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...returnTo }] });
    const { outcomes: second } = await h.executeUpdate(proposeUpdate, { args: [{ party: 'BUYER', ...refund }] });
    const settled = await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: outcomes[0]!.id }] });
    expect(settled.status).toBe('SETTLED');
    // The other pending proposal is superseded by the acceptance.
    expect(settled.outcomes.map((o) => o.status)).toEqual(['ACCEPTED', 'SUPERSEDED']);
    expect(second).toHaveLength(2);
    expect(await refusal(h.executeUpdate(resolveUpdate, { args: [{ party: 'BUYER' }] }))).toBe('conflict:action-not-allowed');
    const closed = await h.executeUpdate(resolveUpdate, { args: [{ party: 'SELLER' }] });
    expect(closed.status).toBe('CLOSED');
    expect((await h.result()).status).toBe('CLOSED');
  });

  it('closes when its order is cancelled: pending outcomes superseded, an accepted RETURN kept, told as a SYSTEM change', async () => {
    const open1 = await open([{ id: 'o-1', type: 'REFUND', party: 'SELLER', status: 'PENDING' }]);
    await open1.signal(orderCancelledSignal);
    expect(await open1.result()).toEqual({
      status: 'CLOSED',
      outcomes: [{ id: 'o-1', type: 'REFUND', party: 'SELLER', status: 'SUPERSEDED' }],
    });
    expect(changes.map((c) => [c.kind, c.actor, c.status])).toEqual([['order-cancelled', 'SYSTEM', 'CLOSED']]);
    await recordReplayHistoriesOf(env.client, [open1.workflowId]);

    // A settled RETURN (waiting for the goods) closes too; its acceptance stands.
    changes = [];
    const settled = await open([{ id: 'o-2', type: 'RETURN', party: 'SELLER', status: 'PENDING' }]);
    await settled.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: 'o-2' }] });
    await settled.signal(orderCancelledSignal);
    expect(await settled.result()).toEqual({
      status: 'CLOSED',
      outcomes: [{ id: 'o-2', type: 'RETURN', party: 'SELLER', status: 'ACCEPTED' }],
    });
    expect(changes.map((c) => [c.kind, c.status])).toEqual([
      ['accept', 'SETTLED'],
      ['order-cancelled', 'CLOSED'],
    ]);
  });

  it('rejects an outcome without changing the case; only the opposite party may answer a PENDING outcome', async () => {
    const h = await open();
    const { outcomes } = await h.executeUpdate(proposeUpdate, { args: [{ party: 'BUYER', ...refund }] });
    const id = outcomes[0]!.id;
    expect(await refusal(h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: id }] }))).toBe('conflict:own-outcome');
    const rejected = await h.executeUpdate(rejectUpdate, { args: [{ party: 'SELLER', outcomeId: id }] });
    expect(rejected).toEqual({ status: 'OPEN', outcomes: [{ ...outcomes[0], status: 'REJECTED' }] });
    expect(await refusal(h.executeUpdate(acceptUpdate, { args: [{ party: 'SELLER', outcomeId: id }] }))).toBe(
      'conflict:outcome-not-pending',
    );
    expect(await refusal(h.executeUpdate(acceptUpdate, { args: [{ party: 'SELLER', outcomeId: 'nope' }] }))).toBe('not-found:not-found');
    // Refused updates write nothing.
    expect(changes.map((c) => c.kind)).toEqual(['propose', 'reject']);
    await h.terminate();
  });

  it('once an outcome is accepted, nothing about outcomes can change (409)', async () => {
    const h = await open();
    const { outcomes } = await h.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...returnTo }] });
    await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: outcomes[0]!.id }] });
    expect(await refusal(h.executeUpdate(rejectUpdate, { args: [{ party: 'BUYER', outcomeId: outcomes[0]!.id }] }))).toBe(
      'conflict:outcome-accepted',
    );
    expect(await refusal(h.executeUpdate(proposeUpdate, { args: [{ party: 'BUYER', ...refund }] }))).toBe('conflict:outcome-accepted');
    expect(await refusal(h.executeUpdate(escalateUpdate, { args: [{ party: 'BUYER' }] }))).toBe('conflict:case-not-escalatable');
    expect((await h.query(caseStateQuery)).status).toBe('SETTLED');
    await h.terminate();
  });

  it('escalates from OPEN and REMEDIATION; operators send it back to REMEDIATION or close it', async () => {
    const h = await open();
    expect((await h.executeUpdate(escalateUpdate, { args: [{ party: 'BUYER' }] })).status).toBe('ESCALATED');
    expect(await refusal(h.executeUpdate(escalateUpdate, { args: [{ party: 'SELLER' }] }))).toBe('conflict:case-not-escalatable');
    expect((await h.executeUpdate(operatorDecisionUpdate, { args: [{ decision: 'remediate' }] })).status).toBe('REMEDIATION');
    expect(await refusal(h.executeUpdate(operatorDecisionUpdate, { args: [{ decision: 'close' }] }))).toBe('conflict:case-not-escalated');
    expect((await h.executeUpdate(escalateUpdate, { args: [{ party: 'SELLER' }] })).status).toBe('ESCALATED');
    expect((await h.executeUpdate(operatorDecisionUpdate, { args: [{ decision: 'close' }] })).status).toBe('CLOSED');
    expect((await h.result()).status).toBe('CLOSED');
    expect(changes.map((c) => [c.actor, c.kind])).toEqual([
      ['BUYER', 'escalate'],
      ['OPERATOR', 'operator-remediate'],
      ['SELLER', 'escalate'],
      ['OPERATOR', 'operator-close'],
    ]);
  });

  it('lets the parties still agree on an escalated case', async () => {
    const h = await open([{ id: 'o-2', type: 'REFUND', party: 'SELLER', status: 'PENDING' }]);
    await h.executeUpdate(escalateUpdate, { args: [{ party: 'BUYER' }] });
    expect((await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: 'o-2' }] })).status).toBe('CLOSED');
  });

  it('escalates automatically after 7 days unresolved, as a SYSTEM change', async () => {
    const h = await open();
    await env.sleep(6 * DAY);
    expect((await h.query(caseStateQuery)).status).toBe('OPEN');
    await env.sleep(DAY + 60_000);
    expect((await h.query(caseStateQuery)).status).toBe('ESCALATED');
    expect(changes.map((c) => [c.actor, c.kind, c.status])).toEqual([['SYSTEM', 'auto-escalate', 'ESCALATED']]);
    await h.terminate();
  });

  it('does not escalate a case that closed on day 6', async () => {
    const h = await open([{ id: 'o-3', type: 'REFUND', party: 'SELLER', status: 'PENDING' }]);
    await env.sleep(6 * DAY);
    await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: 'o-3' }] });
    await env.sleep(2 * DAY);
    expect((await h.result()).status).toBe('CLOSED');
    expect(changes.map((c) => c.kind)).toEqual(['accept']);
  });

  it('counts the 7 days from the start of the OPEN period: proposals do not postpone escalation', async () => {
    const h = await open();
    await env.sleep(4 * DAY);
    await h.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...refund }] });
    await env.sleep(3 * DAY + 60_000);
    expect((await h.query(caseStateQuery)).status).toBe('ESCALATED');
    await h.terminate();
  });

  it('gives a REMEDIATION period its own 7 days', async () => {
    const h = await open();
    await h.executeUpdate(escalateUpdate, { args: [{ party: 'SELLER' }] });
    await env.sleep(10 * DAY);
    // ESCALATED has no timer.
    expect((await h.query(caseStateQuery)).status).toBe('ESCALATED');
    await h.executeUpdate(operatorDecisionUpdate, { args: [{ decision: 'remediate' }] });
    await env.sleep(6 * DAY);
    expect((await h.query(caseStateQuery)).status).toBe('REMEDIATION');
    await env.sleep(DAY + 60_000);
    expect((await h.query(caseStateQuery)).status).toBe('ESCALATED');
    expect(changes.map((c) => c.kind)).toEqual(['escalate', 'operator-remediate', 'auto-escalate']);
    await h.terminate();
  });

  it('ends without writing anything more when the case row does not exist', async () => {
    const queue = 'test-case-missing';
    const w = await Worker.create({
      dataConverter: testDataConverter,
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: { ...activities(), recordCaseChange: async () => null },
    });
    await w.runUntil(async () => {
      const h = await open([], queue);
      await env.sleep(7 * DAY + 60_000);
      expect((await h.result()).status).toBe('ESCALATED');
    });
  });

  it('loses nothing when its worker restarts in the middle of a case', async () => {
    // On a namespace of the run's dev server, not the time-skipping server: that server ignores a
    // stopped worker's ShutdownWorker, so the stopped worker's open long polls can still be handed
    // the case's next task, which then waits out its timeout (10 s and more) before anyone runs it.
    const dev = await devServerEnv();
    const queue = 'test-case-restart';
    // No workflow cache: the second worker must rebuild the case from history alone.
    const start = async () =>
      Worker.create({
        dataConverter: testDataConverter,
        connection: dev.nativeConnection,
        namespace: dev.namespace,
        taskQueue: queue,
        workflowBundle: await workflowBundle(),
        activities: activities(),
        maxCachedWorkflows: 0,
      });
    try {
      const first = await start();
      const h = await first.runUntil(async () => {
        const handle = await open([], queue, dev);
        await handle.executeUpdate(proposeUpdate, { args: [{ party: 'SELLER', ...returnTo }] });
        await handle.executeUpdate(proposeUpdate, { args: [{ party: 'BUYER', ...refund }] });
        return handle;
      });
      expect(first.getState()).toBe('STOPPED');

      const second = await start();
      await second.runUntil(async () => {
        const before = await h.query(caseStateQuery);
        expect(before.outcomes.map((o) => [o.type, o.party, o.status])).toEqual([
          ['RETURN', 'SELLER', 'PENDING'],
          ['REFUND', 'BUYER', 'PENDING'],
        ]);
        const settled = await h.executeUpdate(acceptUpdate, { args: [{ party: 'BUYER', outcomeId: before.outcomes[0]!.id }] });
        expect(settled.status).toBe('SETTLED');
        await h.executeUpdate(resolveUpdate, { args: [{ party: 'SELLER' }] });
        expect((await h.result()).status).toBe('CLOSED');
      });
      expect(changes.map((c) => c.kind)).toEqual(['propose', 'propose', 'accept', 'resolve']);
    } finally {
      await dev.teardown();
    }
  });
});

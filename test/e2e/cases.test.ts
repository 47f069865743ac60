import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startCodecServer } from '../../src/temporal/codec-server';
import { AesGcmPayloadCodec } from '../../src/temporal/payload-codec';
import { casesWorkflowIds } from '../../src/modules/cases';
import { TEMPORAL_CLI } from '../support/env';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { boughtOrder as bought, disputeFirstItem } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';
import { CASE_SEARCH_ATTRIBUTES } from '../../src/domain/cases/search-attributes';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.stop());

/** A real purchase through basket, checkout and the payment simulator: one order, one item. */
const boughtOrder = () => bought(stack.api, { buyerPrefix: 'e2ebuyer', successUrl: 'https://shop.example/thanks' });

/** The path parameters of a case. */
const caseParams = (id: string) => ({ params: { path: { id } } });

describe('a case end to end (API → Temporal dev server → worker → Postgres)', () => {
  it('order → dispute → seller proposes REFUND → buyer accepts → CLOSED, the same in Postgres, the API and Temporal', async () => {
    const { api, env } = stack;
    const { seller, buyer, purchaseId, order } = await boughtOrder();

    const asBuyer = apiClient(api, buyer.bearer);
    const asSeller = apiClient(api, seller.bearer);
    const opened = await disputeFirstItem(api, buyer, { purchaseId, order }, 'Bent corner');
    expect(opened).toMatchObject({ status: 'OPEN', reason: 'DAMAGED', comment: 'Bent corner', purchaseId, orderId: order.id });
    const theCase = caseParams(opened.id);
    const handle = env.client.workflow.getHandle(casesWorkflowIds.case(opened.id));

    const proposed = await dataOf(
      asSeller.PUT('/seller/cases/{id}', { ...theCase, body: { action: 'propose', type: 'REFUND', amount: 1500, comment: 'Full refund' } }),
    );
    expect(proposed).toMatchObject({
      status: 'OPEN',
      orderId: order.id,
      outcomes: [{ type: 'REFUND', party: 'SELLER', status: 'PENDING', amount: 1500 }],
    });
    const outcomeId = proposed.outcomes[0]!.id;

    // The seller cannot accept their own proposal: the workflow's validator refuses (409).
    await expectStatus(asSeller.PUT('/seller/cases/{id}', { ...theCase, body: { action: 'accept', outcomeId } }), 409);

    const accepted = await dataOf(asBuyer.PUT('/user/cases/{id}', { ...theCase, body: { action: 'accept', outcomeId } }));
    expect(accepted).toMatchObject({ status: 'CLOSED', outcomes: [{ id: outcomeId, status: 'ACCEPTED' }] });
    // Once accepted, nothing changes any more.
    await expectStatus(asBuyer.PUT('/user/cases/{id}', { ...theCase, body: { action: 'escalate' } }), 409);

    const finalState = await handle.result();
    const [row] = await api.database.db.query(`SELECT status, workflow_id FROM cases WHERE id = $1`, [opened.id]);
    const outcomes = await api.database.db.query(`SELECT id, status FROM case_outcomes WHERE case_id = $1`, [opened.id]);
    const viaApi = await dataOf(asBuyer.GET('/user/cases/{id}', theCase));
    const description = await handle.describe();

    expect(row).toEqual({ status: 'CLOSED', workflow_id: `case:${opened.id}` });
    expect(outcomes).toEqual([{ id: outcomeId, status: 'ACCEPTED' }]);
    expect(viaApi.status).toBe('CLOSED');
    expect(finalState).toEqual({ status: 'CLOSED', outcomes: [{ id: outcomeId, type: 'REFUND', party: 'SELLER', status: 'ACCEPTED' }] });
    expect(description.status.name).toBe('COMPLETED');
    expect(description.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.status)).toBe('CLOSED');
    expect(description.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.reason)).toBe('DAMAGED');
    expect(description.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.sellerId)).toBe(seller.id);
    expect(description.typedSearchAttributes.get(CASE_SEARCH_ATTRIBUTES.orderId)).toBe(order.id);
    // And as an operator sees it with the CLI, payloads decrypted through the codec endpoint
    // (run asynchronously: the endpoint answering the CLI runs in this process).
    const codec = await startCodecServer(new AesGcmPayloadCodec(api.config.temporal.payloadKeys), {
      host: '127.0.0.1',
      port: 0,
      corsOrigins: [],
    });
    const describe = [
      'workflow',
      'describe',
      '--address',
      env.address,
      '--namespace',
      api.config.temporal.namespace,
      '--workflow-id',
      casesWorkflowIds.case(opened.id),
      '--output',
      'json',
    ];
    const cli = JSON.parse(
      (await promisify(execFile)(TEMPORAL_CLI, [...describe, '--codec-endpoint', codec.url]).finally(() => codec.close())).stdout,
    );
    const keyword = (name: string) =>
      JSON.parse(Buffer.from(cli.workflowExecutionInfo.searchAttributes.indexedFields[name].data, 'base64').toString());
    expect(cli.workflowExecutionInfo.status).toBe('WORKFLOW_EXECUTION_STATUS_COMPLETED');
    expect(cli.result).toEqual(finalState);
    expect(keyword('CaseStatus')).toBe('CLOSED');

    // Both parties were told: the seller of the buyer's acceptance, the buyer of the proposal.
    const told = await eventually(async () => {
      const rows: Array<{ to: string }> = await api.database.db.query(
        `SELECT to_address AS "to" FROM email_messages WHERE kind = 'case-update' AND delivered_at IS NOT NULL AND to_address = ANY($1)`,
        [[buyer.email, seller.email]],
      );
      return rows.length >= 2 ? rows.map((r) => r.to).sort() : null;
    });
    expect(told).toEqual([buyer.email, seller.email].sort());
  }, 120_000);

  it('a proposal takes its address in either spelling or as a saved address, through the workflow, and answers postalCode', async () => {
    const { api } = stack;
    const { seller, buyer, purchaseId, order } = await boughtOrder();
    const asSeller = apiClient(api, seller.bearer);
    const opened = await disputeFirstItem(api, buyer, { purchaseId, order }, 'Wrong card');
    const typed = { name: 'Card Shop', line1: '2 Dock Road', line2: '', city: 'Leeds', state: '', country: 'GB' };
    const saved = await dataOf(asSeller.POST('/user/addresses', { body: { type: 'shipping', ...typed, postalCode: 'LS1 1AA' } }), 201);
    for (const way of [
      { deliveryAddress: { ...typed, postalCode: 'LS1 1AA' } },
      { deliveryAddress: { ...typed, postal_code: 'LS1 1AA' } },
      { addressId: saved.id },
    ]) {
      await dataOf(asSeller.PUT('/seller/cases/{id}', { ...caseParams(opened.id), body: { action: 'propose', type: 'RETURN', ...way } }));
    }
    const theCase = await dataOf(asSeller.GET('/seller/cases/{id}', caseParams(opened.id)));
    expect(theCase.outcomes.map((o) => o.deliveryAddress)).toEqual(Array(3).fill({ ...typed, postalCode: 'LS1 1AA' }));
  });

  it('finds escalated cases by search attribute, as an operator would', async () => {
    const { api, env } = stack;
    const { seller, buyer, order } = await boughtOrder();
    const asSeller = apiClient(api, seller.bearer);
    await expectStatus(
      asSeller.POST('/seller/orders/{id}', {
        params: { path: { id: order.id } },
        body: { action: 'dispute', reason: 'NOT_RECEIVED', items: [{ id: order.items[0]!.id, quantity: 1 }] },
      }),
      204,
    );
    const [opened] = await dataOf(apiClient(api, buyer.bearer).GET('/user/cases'));
    const escalated = await dataOf(asSeller.PUT('/seller/cases/{id}', { ...caseParams(opened!.id), body: { action: 'escalate' } }));
    expect(escalated.status).toBe('ESCALATED');

    const query = `CaseStatus = 'ESCALATED' AND CaseSellerId = '${seller.id}'`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of env.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids.length > 0 ? ids : null;
    });
    expect(found).toEqual([`case:${opened!.id}`]);
  }, 120_000);
});

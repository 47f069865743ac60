import { newId } from '../../src/ids';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import type { TestApi, TestUser } from './api';
import { insertCase } from './cases';
import { apiClient, dataOf, expectStatus } from './client';

/** The seller ships every item of the order and the buyer confirms receipt, over HTTP. */
export async function shipAndReceive(api: TestApi, seller: TestUser, buyer: TestUser, purchaseId: string, orderId: string): Promise<void> {
  const asSeller = apiClient(api, seller.bearer);
  const theOrder = { params: { path: { id: orderId } } };
  const { items } = await dataOf(asSeller.GET('/seller/orders/{id}', theOrder));
  await expectStatus(
    asSeller.POST('/seller/orders/{id}', {
      ...theOrder,
      body: {
        action: 'ship',
        shipment: { carrier: 'RM', trackingNumber: `RM${orderId.slice(-8)}` },
        items: items.map((i) => ({ id: i.id, quantity: i.quantity })),
      },
    }),
    204,
  );
  await expectStatus(
    apiClient(api, buyer.bearer).PUT('/user/purchases/{id}', {
      params: { path: { id: purchaseId } },
      body: { action: 'receive', orderId },
    }),
    200,
  );
}

/**
 * A case on the order whose REFUND outcome of `amount` the seller proposes and the buyer
 * accepts, written through the case change service as the case workflow's activity writes it
 * (for tests without a Temporal server; the end-to-end test goes through the workflow).
 */
export async function acceptRefund(api: TestApi, orderId: string, amount: number): Promise<void> {
  const db = api.database.db;
  const { caseId } = await insertCase(db, orderId, 'BUYER', { items: [] });
  const outcome = { id: newId(), type: 'REFUND' as const, party: 'SELLER' as const };
  const options = { reviewWindowSeconds: 60, ...caseChangeStarts };
  await recordCaseChange(
    db,
    {
      caseId,
      changeId: newId(),
      actor: 'SELLER',
      kind: 'propose',
      status: 'OPEN',
      outcomes: [{ ...outcome, status: 'PENDING' }],
      proposal: { ...outcome, amount, comment: '', deliveryAddress: null },
    },
    options,
  );
  await recordCaseChange(
    db,
    { caseId, changeId: newId(), actor: 'BUYER', kind: 'accept', status: 'CLOSED', outcomes: [{ ...outcome, status: 'ACCEPTED' }] },
    options,
  );
}

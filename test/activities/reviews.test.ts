import { createReviewActivities } from '../../activities/reviews';
import { AUTOMATIC_REVIEW_CONTENT } from '../../src/services/reviews/default-reviews';
import { Reviews } from '../../src/services/reviews/reviews';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPurchase } from '../support/orders';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const activities = () => createReviewActivities({ db: api.database.db });

const reviewsOf = (purchaseId: string) =>
  api.database.db.query(
    `SELECT r.order_id, r.reviewer_id, r.reviewed_user_id, r.rating, r.content, r.automatic
       FROM reviews r JOIN orders o ON o.id = r.order_id WHERE o.purchase_id = $1 ORDER BY r.order_id, r.reviewer_id`,
    [purchaseId],
  );

const aggregatesOf = async (user: TestUser) =>
  (await api.database.db.query(`SELECT reviews_count, rating_sum FROM users WHERE id = $1`, [user.id]))[0];

describe('createDefaultReviews (on Postgres)', () => {
  it('writes both missing directions of every order as automatic 5-star reviews, with aggregates', async () => {
    const buyer = await registerUser(api, 'buyer');
    const sellers = [await registerUser(api, 'sellerA'), await registerUser(api, 'sellerB')];
    const { purchaseId, orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: sellers.map((s) => s.id) });

    expect(await activities().createDefaultReviews(purchaseId)).toBe(4);
    const rows = await reviewsOf(purchaseId);
    expect(rows).toHaveLength(4);
    for (const [i, orderId] of orderIds.entries()) {
      const forOrder = rows.filter((r: { order_id: string }) => r.order_id === orderId);
      expect(forOrder).toEqual(
        expect.arrayContaining([
          {
            order_id: orderId,
            reviewer_id: buyer.id,
            reviewed_user_id: sellers[i]!.id,
            rating: 5,
            content: AUTOMATIC_REVIEW_CONTENT,
            automatic: true,
          },
          {
            order_id: orderId,
            reviewer_id: sellers[i]!.id,
            reviewed_user_id: buyer.id,
            rating: 5,
            content: AUTOMATIC_REVIEW_CONTENT,
            automatic: true,
          },
        ]),
      );
    }
    expect(await aggregatesOf(buyer)).toEqual({ reviews_count: 2, rating_sum: 10 });
    expect(await aggregatesOf(sellers[0]!)).toEqual({ reviews_count: 1, rating_sum: 5 });
  });

  it('creates nothing twice when run again', async () => {
    const buyer = await registerUser(api, 'buyer');
    const seller = await registerUser(api, 'seller');
    const { purchaseId } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id] });
    const both = await Promise.all([activities().createDefaultReviews(purchaseId), activities().createDefaultReviews(purchaseId)]);
    expect(both[0]! + both[1]!).toBe(2);
    expect(await activities().createDefaultReviews(purchaseId)).toBe(0);
    expect(await reviewsOf(purchaseId)).toHaveLength(2);
    expect(await aggregatesOf(seller)).toEqual({ reviews_count: 1, rating_sum: 5 });
  });

  it('does not replace a review its author deleted', async () => {
    const buyer = await registerUser(api, 'buyer');
    const seller = await registerUser(api, 'seller');
    const { purchaseId, orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id] });
    const reviews = new Reviews(api.database.db);
    const withdrawn = await reviews.create(buyer.id, { orderId: orderIds[0]!, rating: 1 });
    await reviews.remove(buyer.id, withdrawn.id);

    expect(await activities().createDefaultReviews(purchaseId)).toBe(1);
    expect((await reviewsOf(purchaseId)).map((r: { reviewer_id: string; automatic: boolean }) => [r.reviewer_id, r.automatic])).toEqual(
      expect.arrayContaining([
        [buyer.id, false],
        [seller.id, true],
      ]),
    );
    expect(await aggregatesOf(seller)).toEqual({ reviews_count: 0, rating_sum: 0 });
  });

  it('leaves a purchase that has not completed alone', async () => {
    const buyer = await registerUser(api, 'buyer');
    const seller = await registerUser(api, 'seller');
    const { purchaseId } = await insertPurchase(api.database.db, {
      buyerId: buyer.id,
      sellerIds: [seller.id],
      orderStatus: 'SHIPPED',
      purchaseStatus: 'PAID',
    });
    expect(await activities().createDefaultReviews(purchaseId)).toBe(0);
    expect(await reviewsOf(purchaseId)).toEqual([]);
  });
});

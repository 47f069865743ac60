import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Case changes are no longer webhook events (the interface makes case updates internal side
 * effects; docs/webhooks.md): existing subscriptions drop `CASE_OPENED` and `CASE_UPDATED`, and
 * case events still waiting in the outbox are not delivered. Not reversible: `down` leaves the
 * subscriptions as they are.
 */
export class NoCaseWebhookEvents1733564000000 implements MigrationInterface {
  name = 'NoCaseWebhookEvents1733564000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE webhook_endpoints SET subscriptions = array_remove(array_remove(subscriptions, 'CASE_OPENED'), 'CASE_UPDATED')
        WHERE subscriptions && ARRAY['CASE_OPENED', 'CASE_UPDATED']`,
    );
    await q.query(`DELETE FROM outbox_events WHERE type IN ('CASE_OPENED', 'CASE_UPDATED') AND dispatched_at IS NULL`);
  }

  public async down(): Promise<void> {
    // Nothing to restore: which endpoints subscribed to case events is not kept.
  }
}

/**
 * The contract of `webhook:{eventId}:{endpointId}` shared by the workflow and the services that
 * start it (the endpoints' test and replay, the fan-out). Types only.
 */

/** Retry settings, frozen into each delivery when it starts (from config `webhooks`). */
export interface WebhookDeliveryPolicy {
  /** Wait before each retry; its length is the number of retries after the first attempt. */
  retryScheduleMs: number[];
  /** Deadline of one HTTP attempt. */
  attemptTimeoutMs: number;
  /**
   * Attempts run as local activities (workflows/webhook-delivery.ts). Every delivery started now
   * says so; one started before it existed has no such field and replays its attempts as the
   * activities its history holds.
   */
  localAttempts?: true;
}

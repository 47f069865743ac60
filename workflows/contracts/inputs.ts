import type { OutcomeState } from '../../src/domain/cases/machine';
import type { TrackingPolicy } from './shipment-tracking';

/**
 * What each workflow whose start is still built in `src/services/workflow-starts/starts.ts` (or
 * by a Schedule) is started with, by workflow type: the workflow functions take these, and those
 * builders are typed by them. Types only, so the client side depends on neither the workflow code
 * nor its activities. A feature module's own workflows are not listed: their functions declare
 * their input and the module's starts are typed from them (src/modules/workflow-start.ts).
 */
export interface WorkflowInputs {
  caseWorkflow: CaseWorkflowInput;
  /** Started by the checkout expiry Schedule; no input. */
  checkoutExpiryWorkflow: Record<string, never>;
  /** Started by the upload collector Schedule: uploads unattached for `olderThanMs` are deleted. */
  uploadCollectorWorkflow: { olderThanMs: number };
  emailDeliveryWorkflow: { messageId: string };
  /** One seller's payout of one run date (YYYY-MM-DD); `transitSeconds` from in transit to the bank's answer. */
  payoutWorkflow: { sellerId: string; runDate: string; transitSeconds: number };
  /**
   * Started by the payout Schedule with no input; a run that continues as new carries its date,
   * the seller to go on after and how many payouts it has started.
   */
  payoutRunWorkflow: { runDate?: string; after?: string; started?: number };
  /** Started by the money reconciler's Schedule; no input. */
  moneyReconcileWorkflow: Record<string, never>;
  /** Started at an order's receipt: its seller share becomes available `afterSeconds` later. */
  /**
   * `releaseAt` is ISO 8601: the transfer's `availableOn`, the date the seller is shown; the hold
   * ends then (at most `afterSeconds` after the start). Starts requested before it existed carry
   * `afterSeconds` alone.
   */
  fundsReleaseWorkflow: { orderId: string; afterSeconds: number; releaseAt?: string };
  orderReceiptWorkflow: { orderId: string; afterSeconds: number };
  /** `completedAt` is ISO 8601: the window closes `windowSeconds` after it. */
  reviewWindowWorkflow: { purchaseId: string; completedAt: string; windowSeconds: number };
  /** `offer:{offerId}`: the workflow reads the offer's state and deadlines from its row. */
  offerWorkflow: { offerId: string };
  shipmentTrackingWorkflow: { shipmentId: string; policy: TrackingPolicy };
  /** Started by the price guide's rollup Schedule; no input. */
  priceGuideRollupWorkflow: Record<string, never>;
}

export interface CaseWorkflowInput {
  caseId: string;
  /** Outcomes proposed when the case was opened (already stored with the case). */
  outcomes: OutcomeState[];
  /** "Unresolved for 7 days" (CASE_AUTO_ESCALATE_SECONDS), counted per OPEN/REMEDIATION period. */
  autoEscalateAfterMs: number;
  /**
   * Whether the server knows the custom search attributes (the dev server and real clusters
   * do; the time-skipping test server does not), so CaseStatus is kept up to date there.
   */
  indexed: boolean;
}

/** Retry settings, frozen into each delivery when it starts (from config `webhooks`). */
export interface WebhookDeliveryPolicy {
  /** Wait before each retry; its length is the number of retries after the first attempt. */
  retryScheduleMs: number[];
  /** Deadline of one HTTP attempt. */
  attemptTimeoutMs: number;
}

export interface WebhookDeliveryInput {
  eventId: string;
  endpointId: string;
  policy: WebhookDeliveryPolicy;
}

// Every workflow the worker hosts. Deterministic code only: activities do all I/O.
export { caseWorkflow } from './case';
export { checkoutExpiryWorkflow } from './checkout-expiry';
export { emailChangeWorkflow } from './email-change';
export { emailDeliveryWorkflow } from './email-delivery';
export { fundsReleaseWorkflow } from './funds-release';
export { payoutWorkflow, payoutRunWorkflow } from './payout';
export { moneyReconcileWorkflow } from './money-reconcile';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { listingImportWorkflow } from './listing-import';
export { orderReceiptWorkflow } from './order-receipt';
export { reviewWindowWorkflow } from './review-window';
export { conversationNotifyWorkflow } from './conversation-notify';
export { outboxRetentionWorkflow } from './retention';
export { shipmentTrackingWorkflow } from './shipment-tracking';
export { uploadCollectorWorkflow } from './upload-collector';
export { optimizationWorkflow } from './optimization';
export { offerWorkflow } from './offer';

// Every workflow the worker hosts. Deterministic code only: activities do all I/O.
export { emailChangeWorkflow } from './email-change';
export { listingImportWorkflow } from './listing-import';

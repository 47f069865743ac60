/**
 * Failure type of an activity refused for its data (activities/failures.ts); workflows branch
 * on it, and it lives in the pure domain layer, which both workflows and activities may load.
 */
export const DATA_REFUSED = 'data-refused';

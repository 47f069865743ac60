/**
 * Failure type of an activity refused for its data (activities/failures.ts); workflows branch
 * on it, and it lives here because workflows may not load the database modules.
 */
export const DATA_REFUSED = 'data-refused';

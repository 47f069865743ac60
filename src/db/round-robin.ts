/**
 * What `roundRobinRanking` ranks: a queue table whose pending rows are handed out round-robin
 * across fairness keys. Every name is SQL written here in the code, never a value from a request.
 */
export interface RoundRobinQueue {
  table: string;
  /** The column rows are rationed by (a webhook event's seller, a start intent's fairness key). */
  key: string;
  /** Oldest first within a key, ending with the unique `id`. */
  order: string[];
  /** The predicate of the rows still waiting; the partial index below has the same one. */
  pending: string;
  /** Further condition on the rows that may go now (a start intent waiting out a failure may not). */
  due?: string;
}

/**
 * The common table expressions `keys` and `ranked` (after `WITH RECURSIVE`): `ranked` holds the
 * `order` columns and the `turn` of the queue's first `limit` pending rows in round-robin order,
 * every key's oldest row first (turn 1), then every key's second, so one key's burst waits
 * behind every other key's rows rather than in front of them (docs/webhooks.md, "Fairness").
 * Order the claim by `turn` and then the queue's `order` columns.
 *
 * A ranking over the whole backlog cost more the longer it was (100–150 ms a claim with
 * 100,000 rows behind one seller, bench/results/outbox-claims.md). Here `keys` walks the keys
 * that have pending rows, one index probe each (a recursive skip scan: the next key greater than
 * the last), and `ranked` reads at most `limit` rows of each key, so a claim costs the same
 * (about 4 ms) behind 1,000 or 100,000 rows of one seller. It costs one probe per key instead:
 * thousands of keys with a row or two each are slower to walk than to rank (docs/webhooks.md,
 * "Fairness"). The queue needs a partial index on (key, order…) WHERE pending, including the
 * `due` columns. `limit` is a SQL expression (a parameter placeholder).
 */
export function roundRobinRanking(q: RoundRobinQueue, limit: string): string {
  const order = q.order.join(', ');
  const candidateOrder = q.order.map((column) => `c.${column}`).join(', ');
  const due = q.due ? ` AND ${q.due}` : '';
  return `keys AS (
      (SELECT ${q.key} AS fair_key FROM ${q.table} WHERE ${q.pending} ORDER BY ${q.key} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${q.key} FROM ${q.table} WHERE ${q.pending} AND ${q.key} > k.fair_key ORDER BY ${q.key} LIMIT 1)
        FROM keys k WHERE k.fair_key IS NOT NULL),
    ranked AS (
      SELECT ${candidateOrder}, row_number() OVER (PARTITION BY k.fair_key ORDER BY ${candidateOrder}) AS turn
        FROM keys k
       CROSS JOIN LATERAL (
         SELECT ${order} FROM ${q.table}
          WHERE ${q.key} = k.fair_key AND ${q.pending}${due}
          ORDER BY ${order} LIMIT ${limit}) c
       ORDER BY turn, ${candidateOrder}
       LIMIT ${limit})`;
}

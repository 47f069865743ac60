import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A read statement on a hot path, run as a named prepared statement: each connection parses it
 * once, and PostgreSQL may keep one generic plan for it instead of planning every call. For the
 * short index lookups Discover and seller search miss their caches with, planning cost 3–5 × what
 * executing did (0.15–0.3 ms against 0.03–0.09 ms, EXPLAIN ANALYZE on a warm connection of the
 * catalog bench); docs/operations.md, "Prepared statements".
 *
 * The text must be constant (node-postgres refuses one name with two texts) and must list its
 * columns: a prepared `SELECT *` would fail after a migration adds a column.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const texts = new Map<string, string>();

/** Declares a prepared statement; a name used twice with two texts fails at load, not on some connection later. */
export function prepared(name: string, text: string): PreparedStatement {
  const known = texts.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement "${name}" is declared twice with different texts`);
  texts.set(name, text);
  return { name, text };
}

/**
 * Runs `statement` on the connection `db` would use: the transaction's own connection for an
 * EntityManager inside one, otherwise any connection of the pool.
 */
export async function queryPrepared<R extends QueryResultRow>(
  db: DataSource | EntityManager,
  statement: PreparedStatement,
  values: unknown[],
): Promise<R[]> {
  const config = { name: statement.name, text: statement.text, values };
  const source = db instanceof DataSource ? db : db.connection;
  // Through TypeORM's logger as its own queries are, so query logging (and bench/catalog/explain.ts) sees these too.
  source.logger.logQuery(statement.text, values);
  if (!(db instanceof DataSource) && db.queryRunner) {
    const client = (await db.queryRunner.connect()) as PoolClient;
    return (await client.query<R>(config)).rows;
  }
  const pool = (source.driver as unknown as { master: Pool }).master;
  return (await pool.query<R>(config)).rows;
}

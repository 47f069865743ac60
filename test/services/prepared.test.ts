import { DataSource, type Logger } from 'typeorm';
import { prepared, queryPrepared } from '../../src/db/prepared';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const BACKEND = prepared('test-backend', `SELECT $1::int AS n, current_setting('jit') AS jit`);
const SEEN = prepared('test-seen', `SELECT count(*)::int AS n FROM users WHERE username = $1`);

describe('prepared statements', () => {
  it('are parsed once per connection, then only executed', async () => {
    const session = database.db.createQueryRunner();
    try {
      for (const n of [1, 2, 3]) expect((await queryPrepared<{ n: number }>(session.manager, BACKEND, [n]))[0]!.n).toBe(n);
      const [statement] = await session.query(
        `SELECT count(*) OVER ()::int AS count, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE name = 'test-backend'`,
      );
      expect(statement).toEqual({ count: 1, runs: 3 });
    } finally {
      await session.release();
    }
  });

  it('answer every call of the pool with its own values, with the session settings of any statement', async () => {
    const rows = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => queryPrepared<{ n: number; jit: string }>(database.db, BACKEND, [n])));
    expect(rows.map(([r]) => r!.n)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.map(([r]) => r!.jit)).toEqual(Array(6).fill('off'));
  });

  it('run inside a transaction on its connection: they see what it has not committed', async () => {
    const name = `prepared-${Date.now()}`;
    const inside = await database.db
      .transaction(async (tx) => {
        await tx.query(
          `INSERT INTO users (id, username, email, password_hash) VALUES (gen_random_uuid(), $1, $1 || '@example.test', 'x')`,
          [name],
        );
        const [row] = await queryPrepared<{ n: number }>(tx, SEEN, [name]);
        // Rolled back: the insert never lands.
        throw Object.assign(new Error('roll back'), { seen: row!.n });
      })
      .catch((err: { seen?: number }) => err.seen);
    expect(inside).toBe(1);
    const [after] = await queryPrepared<{ n: number }>(database.db, SEEN, [name]);
    expect(after!.n).toBe(0);
  });

  it("pass through TypeORM's query logger, as its own statements do", async () => {
    const logged: Array<[string, unknown]> = [];
    const quiet = () => undefined;
    const logger: Logger = {
      logQuery: (query, parameters) => void logged.push([query, parameters]),
      logQueryError: quiet,
      logQuerySlow: quiet,
      logSchemaBuild: quiet,
      logMigration: quiet,
      log: quiet,
    };
    const logging = new DataSource({ ...database.db.options, logging: ['query'], logger });
    await logging.initialize();
    try {
      logged.length = 0; // what initialize() sent
      await queryPrepared(logging, BACKEND, [7]);
      expect(logged).toEqual([[BACKEND.text, [7]]]);
    } finally {
      await logging.destroy();
    }
  });

  it('refuse one name with two texts when declared', () => {
    expect(() => prepared('test-seen', 'SELECT 1')).toThrow(/declared twice/);
    expect(prepared('test-seen', `SELECT count(*)::int AS n FROM users WHERE username = $1`).name).toBe('test-seen');
  });
});

import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

describe('the data source', () => {
  it('runs its sessions without PostgreSQL JIT compilation, in transactions too', async () => {
    // Several sessions of the pool, not only the first one.
    const plain = await Promise.all(
      [1, 2, 3].map(() => database.db.query(`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid`)),
    );
    expect(new Set(plain.map(([r]) => r.pid)).size).toBeGreaterThan(1);
    expect(plain.map(([r]) => r.jit)).toEqual(['off', 'off', 'off']);
    const [inTx] = await database.db.transaction((tx) => tx.query(`SELECT current_setting('jit') AS jit`));
    expect(inTx.jit).toBe('off');
  });
});

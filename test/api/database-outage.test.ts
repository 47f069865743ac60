import net from 'node:net';
import { createDataSource } from '../../src/db/data-source';
import { startTestApi, type TestApi } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * A TCP relay between the API and PostgreSQL that can go down like a restarting database
 * server: its connections are cut and new ones are refused until it listens again.
 */
class Relay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

let database: TestDatabase;
let relay: Relay;
let api: TestApi;
let relayed: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  const url = new URL(database.url);
  relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
  await relay.up();
  url.hostname = '127.0.0.1';
  url.port = String(relay.port);
  const db = createDataSource({ url: url.toString(), poolSize: 2 });
  await db.initialize();
  relayed = { url: url.toString(), db, close: async () => undefined };
  api = await startTestApi({ database: relayed });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await relayed?.db.destroy();
  await relay?.down();
  await database?.close();
});

const register = (name: string) =>
  api.http.post('/auth/register').send({ email: `${name}@example.com`, username: name, password: 'outage password 123' });

describe('PostgreSQL unreachable', () => {
  it('answers 503 temporarily-unavailable while the database is down, and serves again once it is back', async () => {
    await register('beforeoutage').expect(201);

    await relay.down();
    const during = await register('duringoutage');
    expect(during.status).toBe(503);
    expect(during.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(during.body).toMatchObject({
      type: '/problems/temporarily-unavailable',
      status: 503,
      detail: 'A service this request needs is not reachable; try again shortly.',
    });
    expect(JSON.stringify(during.body)).not.toMatch(/ECONN|terminated|127\.0\.0\.1/);
    const ready = await api.http.get('/readyz').expect(503);
    expect(ready.body.postgres).toBe('down');

    await relay.up();
    await register('afteroutage').expect(201);
    const [{ n }] = await database.db.query(
      `SELECT count(*)::int AS n FROM users WHERE username IN ('beforeoutage', 'duringoutage', 'afteroutage')`,
    );
    expect(n).toBe(2);
  }, 60_000);

  it('runs its prepared statements again on the connections it opens after the outage', async () => {
    // Every step below authenticates (the token's user) and checks the seller account, and seller
    // search reads the seller's version and page: prepared statements, parsed per connection.
    const { body } = await register('preparedseller').expect(201);
    const bearer = { authorization: `Bearer ${body.accessToken as string}` };
    await api.http.post('/seller').set(bearer).send({}).expect(201);
    const search = () => api.http.post('/seller/listings/search').set(bearer).send({});
    expect((await search().expect(200)).body).toMatchObject({ total: 0, hits: [] });

    await relay.down();
    const during = await search();
    expect(during.status).toBe(503);
    expect(during.body.type).toBe('/problems/temporarily-unavailable');

    await relay.up();
    expect((await search().expect(200)).body).toMatchObject({ total: 0, hits: [] });
    await api.http.get('/user/addresses').set(bearer).expect(200);
  }, 60_000);
});

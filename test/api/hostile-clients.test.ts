import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { SignJWT } from 'jose';
import { newId } from '../../src/ids';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { ADDRESS } from '../support/shop';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { SIGN_IN_MAX_FAILURES: '3', SIGN_IN_LOCK_SECONDS: '600' } });
});
afterAll(() => api.close());

/** A request with any method (supertest and fetch refuse some), answered as status, headers and parsed body. */
function raw(method: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${api.baseUrl}${path}`, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const fields = (body: { errors?: Array<{ in: string; field: string }> }) => (body.errors ?? []).map((e) => `${e.in}:${e.field}`);

describe('text at the edge: NUL and unpaired surrogates are a 400 naming the field', () => {
  it('refuses NUL in a query string, a path and a JSON body', async () => {
    const search = await api.http.get('/search?q=a%00b').expect(400);
    expect(search.body.type).toBe('/problems/validation-failed');
    expect(fields(search.body)).toEqual(['query:q']);

    const user = await registerUser(api);
    const pat = await api.http.post('/user/personal-access-tokens').set(user.bearer).send({ name: 'a\u0000b' }).expect(400);
    expect(fields(pat.body)).toEqual(['body:name']);

    const basket = await api.http.get('/basket').set(user.bearer).expect(200);
    const path = await api.http.get(`/basket/${basket.body.id}%00/summary`).set(user.bearer).expect(400);
    expect(fields(path.body)).toEqual(['params:id']);
  });

  it('refuses a lone surrogate in a nested body field, in a header map key and value', async () => {
    const buyer = await registerUser(api);
    const basket = await api.http.get('/basket').set(buyer.bearer).expect(200);
    const address = await api.http
      .put(`/basket/${basket.body.id}/delivery`)
      .set(buyer.bearer)
      .send({ address: { ...ADDRESS, city: 'Lon\ud800don' } })
      .expect(400);
    expect(fields(address.body)).toEqual(['body:address.city']);

    const seller = await registerSeller(api);
    const hook = await api.http
      .post('/seller/webhooks')
      .set(seller.bearer)
      .send({ url: 'https://hooks.example.com/x', headers: { 'X-A': 'a\udc00', 'X-\ud800': 'b' } })
      .expect(400);
    expect(fields(hook.body).sort()).toEqual(['body:headers.X-A', 'body:headers.X-\ud800'].sort());
  });

  it('counts the password minimum in characters (code points), not UTF-16 units', async () => {
    const res = await api.http
      .post('/auth/register')
      .send({ email: 'emoji@example.test', username: 'emoji1', password: '😀😀😀😀😀' })
      .expect(400);
    expect(fields(res.body)).toEqual(['body:password']);
    await api.http
      .post('/auth/register')
      .send({ email: 'emoji@example.test', username: 'emoji1', password: '😀😀😀😀😀😀😀😀😀😀' })
      .expect(201);
  });

  it('counts every length limit in code points, as the published maxLength does', async () => {
    const user = await registerUser(api);
    // A token name is at most 256 characters: 256 emoji are 512 UTF-16 units, and fit.
    const fits = await api.http
      .post('/user/personal-access-tokens')
      .set(user.bearer)
      .send({ name: '😀'.repeat(256) })
      .expect(201);
    expect([...fits.body.name]).toHaveLength(256);
    const over = await api.http
      .post('/user/personal-access-tokens')
      .set(user.bearer)
      .send({ name: '😀'.repeat(257) })
      .expect(400);
    expect(fields(over.body)).toEqual(['body:name']);
  });
});

/** Bytes written straight to the server's socket, and everything it answers before closing. */
function rawBytes(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(api.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

describe('requests the HTTP parser refuses: problem+json, not a bare status line', () => {
  it('answers a URL over the 16 kB header limit with 431 and a malformed request line with 400', async () => {
    const long = await rawBytes(`GET /oauth/authorize?state=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    const [head, body] = long.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toContain('Content-Type: application/problem+json');
    expect(JSON.parse(body!)).toEqual({
      type: '/problems/request-header-too-large',
      title: 'Request Header Fields Too Large',
      status: 431,
      detail: 'The request line and headers exceed 16 kB.',
    });
    const malformed = await rawBytes('NOT A REQUEST\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(malformed.split('\r\n\r\n')[1]!)).toMatchObject({ type: '/problems/malformed-request', status: 400 });
  });
});

describe('methods', () => {
  it('answers TRACE and other unimplemented methods 405 with Allow, never 500', async () => {
    for (const method of ['TRACE', 'PROPFIND']) {
      const res = await raw(method, '/healthz');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toMatch(/GET/);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.type).toBe('/problems/method-not-allowed');
    }
    const unknownPath = await raw('TRACE', '/no/such/route');
    expect(unknownPath.status).toBe(404);
  });

  it('answers a method a path without parameters lacks 405, even where a templated sibling path has that method', async () => {
    // `/seller/listings/items` (GET) beside `/seller/listings/{id}` (GET, PUT, DELETE), and
    // `/seller/listings/bulk` (POST) beside the same: the concrete path is the resource.
    const seller = await registerSeller(api);
    const put = await api.http.put('/seller/listings/items').set(seller.bearer).send({ price: 1 }).expect(405);
    expect(put.headers.allow).toBe('HEAD, GET');
    expect(put.body.type).toBe('/problems/method-not-allowed');
    const del = await api.http.delete('/seller/listings/bulk').set(seller.bearer).expect(405);
    expect(del.headers.allow).toBe('POST');
    await api.http.get('/seller/listings/bulk').set(seller.bearer).expect(405);
    // The templated path still answers its own URLs.
    await api.http.get(`/seller/listings/${newId()}`).set(seller.bearer).expect(404);
  });

  it("advertises only a path's own methods on OPTIONS and TRACE, not those of a templated sibling", async () => {
    // Found by schemathesis (allow_header_conformance): OPTIONS /seller/listings/items listed the
    // PUT and DELETE of /seller/listings/{id}.
    for (const [path, allow] of [
      ['/seller/listings/items', 'HEAD, GET'],
      ['/seller/listings/search', 'POST'],
      ['/seller/listings/bulk', 'POST'],
    ] as const) {
      const options = await raw('OPTIONS', path);
      expect(options.status).toBe(200);
      expect(options.headers.allow).toBe(allow);
      const trace = await raw('TRACE', path);
      expect(trace.status).toBe(405);
      expect(trace.headers.allow).toBe(allow);
    }
    // A templated path keeps its own list.
    const templated = await raw('OPTIONS', `/seller/listings/${newId()}`);
    expect(templated.headers.allow).toMatch(/PUT/);
  });

  it('sends Allow with an ordinary 405', async () => {
    const res = await api.http.put('/healthz').expect(405);
    expect(res.headers.allow).toMatch(/GET/);
  });
});

describe('tokens', () => {
  const sign = (claims: { sub: string; exp?: boolean }) => {
    // Every claim an issued token carries (RFC 9068: the issuer URL, a jti), `exp` as asked.
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(claims.sub)
      .setIssuer(api.baseUrl)
      .setAudience('marketplace-api')
      .setJti(randomUUID())
      .setIssuedAt();
    return (claims.exp === false ? jwt : jwt.setExpirationTime('5m')).sign(api.config.auth.jwtSecret);
  };

  it('refuses an access token without exp', async () => {
    const user = await registerUser(api);
    await api.http
      .get('/basket')
      .set('Authorization', `Bearer ${await sign({ sub: user.id })}`)
      .expect(200);
    await api.http
      .get('/basket')
      .set('Authorization', `Bearer ${await sign({ sub: user.id, exp: false })}`)
      .expect(401);
  });

  it('answers 401 for a valid token whose user does not exist', async () => {
    await api.http
      .get('/basket')
      .set('Authorization', `Bearer ${await sign({ sub: newId() })}`)
      .expect(401);
    await api.http
      .get('/basket')
      .set('Authorization', `Bearer ${await sign({ sub: 'not-a-uuid' })}`)
      .expect(401);
  });
});

describe('error lists', () => {
  it('lists at most 20 failing fields, then a count', async () => {
    const body: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) body[`unknown${i}`] = 'x';
    const res = await api.http
      .post('/search/lookup/bulk')
      .send({ urns: [], ...body })
      .expect(400);
    expect(res.body.errors).toHaveLength(20);
    expect(res.body.errorCount).toBeGreaterThanOrEqual(5000);
    expect(res.text.length).toBeLessThan(5_000);
  });
});

describe('sign-in throttle per account (SIGN_IN_MAX_FAILURES=3)', () => {
  const signIn = (username: string, password: string) => api.http.post('/oauth/token').send({ grant_type: 'password', username, password });

  it("one count per account: the e-mail address and case or compatibility spellings share the username's lock", async () => {
    const user = await registerUser(api, 'irise');
    for (let i = 0; i < 3; i++) await signIn(user.username, 'wrong password!').expect(400);
    await signIn(user.username, user.password).expect(429);
    await signIn(user.email, user.password).expect(429);
    await signIn(user.email.toUpperCase(), user.password).expect(429);
    // Fullwidth "ｉ" folds to "i" under NFKC.
    await signIn(`ｉ${user.username.slice(1)}`, user.password).expect(429);
    await signIn(`İ${user.username.slice(1)}`, user.password).expect((res) => expect(res.status).not.toBe(200));
  });

  it('failures through the e-mail address lock the username too', async () => {
    const user = await registerUser(api, 'mail');
    for (let i = 0; i < 3; i++) await signIn(user.email, 'wrong password!').expect(400);
    await signIn(user.username, user.password).expect(429);
  });

  it('unknown names lock per normalised name', async () => {
    for (let i = 0; i < 3; i++) await signIn('Nobody-There', 'whatever-password').expect(400);
    await signIn('nobody-there', 'whatever-password').expect(429);
    await signIn('ｎobody-there', 'whatever-password').expect(429);
  });
});

describe('Idempotency-Key', () => {
  const option = { name: 'Royal Mail', price: 150, tracked: false, countries: ['GB'] };
  const createOption = (seller: { bearer: Record<string, string> }, key: string, name = option.name) =>
    api.http
      .post('/seller/delivery-options')
      .set(seller.bearer)
      .set('Idempotency-Key', key)
      .send({ ...option, name });
  const optionsOf = async (seller: { bearer: Record<string, string> }) =>
    (await api.http.get('/seller/delivery-options').set(seller.bearer).expect(200)).body;

  it('answers a retry with the stored answer and its original status; the action happens once', async () => {
    const seller = await registerSeller(api);
    const first = await createOption(seller, 'k-1').expect(201);
    const retry = await createOption(seller, 'k-1').expect(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await optionsOf(seller)).toHaveLength(1);
  });

  it('refuses the same key with a different request (422), and while the first is in flight (409)', async () => {
    const seller = await registerSeller(api);
    await createOption(seller, 'k-2', 'one').expect(201);
    const reused = await createOption(seller, 'k-2', 'two').expect(422);
    expect(reused.body.type).toBe('/problems/idempotency-key-reused');

    // A claim without an answer yet, for the very request sent next.
    const [{ request_hash: hash }] = await api.database.db.query(
      `SELECT request_hash FROM idempotency_keys WHERE user_id = $1 AND key = 'k-2'`,
      [seller.id],
    );
    await api.database.db.query(`INSERT INTO idempotency_keys (user_id, key, request_hash) VALUES ($1, 'k-3', $2)`, [seller.id, hash]);
    const inFlight = await createOption(seller, 'k-3', 'one').expect(409);
    expect(inFlight.body.type).toBe('/problems/idempotency-key-in-use');
    expect(await optionsOf(seller)).toHaveLength(1);
  });

  it('scopes keys per user, forgets them after 24 hours, lets a failed request be retried, and checks the key', async () => {
    const a = await registerSeller(api);
    const b = await registerSeller(api);
    await createOption(a, 'shared').expect(201);
    await createOption(b, 'shared').expect(201);
    expect(await optionsOf(b)).toHaveLength(1);

    await api.database.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE user_id = $1`, [a.id]);
    await createOption(a, 'shared').expect(201);
    expect(await optionsOf(a)).toHaveLength(2);

    // A refused request stores nothing: the key is free for the corrected request.
    await api.http
      .post('/seller/delivery-options')
      .set(a.bearer)
      .set('Idempotency-Key', 'fix-me')
      .send({ ...option, price: -1 })
      .expect(400);
    await createOption(a, 'fix-me').expect(201);

    await createOption(a, 'bad key with spaces').expect(400);
  });

  it('refuses an empty Idempotency-Key header (400) rather than running the request unprotected', async () => {
    const seller = await registerSeller(api);
    const res = await createOption(seller, '').expect(400);
    expect(res.body.type).toBe('/problems/validation-failed');
    expect(fields(res.body)).toEqual(['headers:Idempotency-Key']);
    expect(await optionsOf(seller)).toHaveLength(0);
  });

  it("a process that stops between the handler's commit and storing the answer: a retry does not run the action again", async () => {
    const seller = await registerSeller(api);
    const db = api.database.db;
    // The seam: the database refuses to store this key's answer, after the handler's own
    // transaction has committed, as if the process had died right there.
    await db.query(`
      CREATE OR REPLACE FUNCTION test_refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.key = 'crash-1' AND NEW.status IS NOT NULL THEN RAISE EXCEPTION 'answer not stored'; END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER test_refuse_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION test_refuse_answer()`,
    );
    try {
      await createOption(seller, 'crash-1').expect(500);
    } finally {
      await db.query(`DROP TRIGGER test_refuse_answer ON idempotency_keys`);
    }
    expect(await optionsOf(seller)).toHaveLength(1);
    // At once: still taken as in flight.
    expect((await createOption(seller, 'crash-1').expect(409)).body.type).toBe('/problems/idempotency-key-in-use');

    // After the 5 minutes that make an unanswered claim "abandoned": the claim says its request
    // committed, so the retry is refused rather than creating a second option.
    await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '6 minutes' WHERE user_id = $1`, [seller.id]);
    const retry = await createOption(seller, 'crash-1').expect(409);
    expect(retry.body.type).toBe('/problems/idempotency-key-answer-lost');
    expect(await optionsOf(seller)).toHaveLength(1);

    // A claim whose request committed nothing (it died before its commit) is still abandoned, and runs.
    const [{ request_hash: hash }] = await db.query(`SELECT request_hash FROM idempotency_keys WHERE user_id = $1 AND key = 'crash-1'`, [
      seller.id,
    ]);
    await db.query(
      `INSERT INTO idempotency_keys (user_id, key, request_hash, created_at) VALUES ($1, 'crash-2', $2, now() - interval '6 minutes')`,
      [seller.id, hash],
    );
    await createOption(seller, 'crash-2').expect(201);
    expect(await optionsOf(seller)).toHaveLength(2);
  });

  it('a request that committed and then failed keeps its claim: the retry is refused, not run again', async () => {
    const seller = await registerSeller(api);
    const db = api.database.db;
    const keys = api.services.idempotencyKeys;
    const hash = 'committed-then-failed';
    expect(await keys.claim(seller.id, 'after-commit', hash)).toEqual({ kind: 'claimed' });
    // The handler's transaction commits, then something after it fails: the router releases the claim.
    const failed = keys.holding(seller.id, 'after-commit', async () => {
      await db.transaction((tx) => tx.query(`UPDATE users SET updated_at = now() WHERE id = $1`, [seller.id]));
      throw new Error('failed after the commit');
    });
    await expect(failed).rejects.toThrow('failed after the commit');
    await keys.release(seller.id, 'after-commit');
    // The claim stays, marked applied: a retry is in flight now, and after 5 minutes "answer lost", never a second run.
    await expect(keys.claim(seller.id, 'after-commit', hash)).rejects.toMatchObject({ code: 'idempotency-key-in-use' });
    await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '6 minutes' WHERE user_id = $1`, [seller.id]);
    await expect(keys.claim(seller.id, 'after-commit', hash)).rejects.toMatchObject({ code: 'idempotency-key-answer-lost' });

    // A request that failed before committing anything gives its claim up: the retry runs.
    expect(await keys.claim(seller.id, 'before-commit', hash)).toEqual({ kind: 'claimed' });
    await expect(keys.holding(seller.id, 'before-commit', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await keys.release(seller.id, 'before-commit');
    expect(await keys.claim(seller.id, 'before-commit', hash)).toEqual({ kind: 'claimed' });
  });

  it('does not keep answers that carry a secret shown once', async () => {
    const user = await registerUser(api);
    await api.http.post('/user/personal-access-tokens').set(user.bearer).set('Idempotency-Key', 'pat').send({ name: 'ci' }).expect(201);
    expect(await api.database.db.query(`SELECT 1 FROM idempotency_keys WHERE user_id = $1`, [user.id])).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog } from '../support/fixtures';
import { png } from '../support/images';

/** Per-user upload quota and rate over HTTP, with small limits so a test reaches them quickly. */
let api: TestApi;
let dir: string;
let image: Buffer;
let urn: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mts-upload-quota-'));
  api = await startTestApi({ env: { UPLOADS_DIR: dir, UPLOAD_MAX_PENDING: '3', UPLOAD_MAX_PENDING_MB: '1', UPLOADS_PER_MINUTE: '5' } });
  urn = (await seedCatalog(api.database.db)).items[0]!.urn;
  image = await png(16, 16);
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (user: TestUser) => api.http.post('/uploads').set(user.bearer);
const put = (user: TestUser, id: string, bytes: Buffer) => api.http.put(`/uploads/${id}`).set(user.bearer).type('image/png').send(bytes);

describe('upload quota', () => {
  it('holds a user to UPLOAD_MAX_PENDING unattached uploads (409); attaching one frees its place', async () => {
    const seller = await registerSeller(api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(seller).expect(201)).body.id);
    const over = await create(seller).expect(409);
    expect(over.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(over.body.type).toBe('/problems/upload-quota-reached');
    // Someone else is not affected.
    await create(await registerUser(api)).expect(201);

    await put(seller, ids[0]!, image).expect(200);
    const listing = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send({ urn, condition: 'MINT', language: 'en', price: 100, quantity: 1 })
      .expect(201);
    await api.http.post(`/seller/listings/${listing.body.id}/attachments`).set(seller.bearer).send({ imageId: ids[0] }).expect(201);
    await create(seller).expect(201);
  });

  it('holds a user to UPLOAD_MAX_PENDING_MB of unattached bytes (409 on the PUT)', async () => {
    const user = await registerUser(api);
    await api.database.db.query(
      `INSERT INTO uploads (id, owner_id, status, content_type, byte_size, finalized_at)
       VALUES ('01890000-0000-7000-8000-00000000aaaa', $1, 'READY', 'image/png', 1048576, now())`,
      [user.id],
    );
    const id = (await create(user).expect(201)).body.id;
    const res = await put(user, id, image).expect(409);
    expect(res.body.type).toBe('/problems/upload-quota-reached');
  });

  it('allows UPLOADS_PER_MINUTE uploads a minute; the next is 429 with Retry-After', async () => {
    const rated = await startTestApi({ env: { UPLOADS_DIR: dir, UPLOAD_MAX_PENDING: '100', UPLOADS_PER_MINUTE: '3' } });
    try {
      const user = await registerUser(rated);
      for (let i = 0; i < 3; i++) await rated.http.post('/uploads').set(user.bearer).expect(201);
      const over = await rated.http.post('/uploads').set(user.bearer).expect(429);
      expect(over.body).toMatchObject({ type: '/problems/upload-rate-limited', retryAfter: expect.any(Number) });
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
      // A minute later (moved in the database) the user may upload again.
      await rated.database.db.query(`UPDATE uploads SET created_at = created_at - interval '61 seconds' WHERE owner_id = $1`, [user.id]);
      await rated.http.post('/uploads').set(user.bearer).expect(201);
    } finally {
      await rated.close();
    }
  });

  it('lets two uploads created at once not both take the last place', async () => {
    const user = await registerUser(api);
    await create(user).expect(201);
    await create(user).expect(201);
    const statuses = (await Promise.all([create(user), create(user), create(user)])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
  });
});

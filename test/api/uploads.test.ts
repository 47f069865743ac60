import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { seedCatalog } from '../support/fixtures';
import { bigAnimation, jpegWithGps, png } from '../support/images';

let PNG: Buffer;
let JPEG: Buffer;

let api: TestApi;
let dir: string;
let urn: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mts-uploads-'));
  api = await startTestApi({ env: { UPLOADS_DIR: dir, UPLOAD_MAX_BYTES: '65536' } });
  urn = (await seedCatalog(api.database.db)).items[0]!.urn;
  PNG = await png(16, 16);
  JPEG = await sharp(PNG).jpeg().toBuffer();
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

async function upload(bearer: { Authorization: string }, bytes: Buffer, type = 'image/png') {
  const created = await api.http.post('/uploads').set(bearer).expect(201);
  const put = await api.http.put(`/uploads/${created.body.id}`).set(bearer).set('Content-Type', type).send(bytes);
  return { id: created.body.id as string, uploadUrl: created.body.uploadUrl as string, put };
}

describe('direct uploads', () => {
  it('creates a draft, stores the bytes (type from content), then serves them publicly', async () => {
    const user = await registerUser(api);
    const { id, uploadUrl, put } = await upload(user.bearer, JPEG, 'application/octet-stream');
    expect(uploadUrl).toMatch(new RegExp(`/uploads/${id}$`));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, status: 'READY', contentType: 'image/jpeg' });
    const image = await imageBytes(id);
    expect(image.type).toBe('image/jpeg');
    // Stored re-encoded (without metadata): the same picture, its own bytes.
    expect(put.body.byteSize).toBe(image.bytes.length);
    expect(await sharp(image.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 16, height: 16 });
    // Bytes are set once.
    await api.http.put(`/uploads/${id}`).set(user.bearer).set('Content-Type', 'image/png').send(PNG).expect(409);
  });

  it('refuses non-images, oversized bodies, other media types and other users', async () => {
    const user = await registerUser(api);
    const stranger = await registerUser(api);
    const notImage = await upload(user.bearer, Buffer.from('GIF89a-not-accepted'));
    expect(notImage.put.status).toBe(415);
    expect(notImage.put.body.type).toBe('/problems/unsupported-image-type');
    const tooBig = await upload(user.bearer, Buffer.concat([PNG, Buffer.alloc(65536)]));
    expect(tooBig.put.status).toBe(413);
    const textual = await upload(user.bearer, PNG, 'text/plain');
    expect(textual.put.status).toBe(415);
    const created = await api.http.post('/uploads').set(user.bearer).expect(201);
    await api.http.put(`/uploads/${created.body.id}`).set(stranger.bearer).set('Content-Type', 'image/png').send(PNG).expect(404);
    // A draft is not an image yet.
    await api.http.get(`/images/${created.body.id}`).expect(404);
  });
});

/** The bytes `/images/{id}` serves, and their type. */
async function imageBytes(id: string): Promise<{ bytes: Buffer; type: string }> {
  const res = await api.http
    .get(`/images/${id}`)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    })
    .expect(200);
  return { bytes: res.body as Buffer, type: res.headers['content-type'] as string };
}

describe('image checks when the bytes arrive', () => {
  it('refuses an animation bomb (many large frames) with 422 image-rejected, before decoding its frames', async () => {
    const user = await registerUser(api);
    // 100 frames of 640×640: 41 MP over all frames, over the 40 MP budget, in a file of a few kB.
    const bomb = await bigAnimation(640, 100);
    expect(bomb.length).toBeLessThan(65536);
    const { id, put } = await upload(user.bearer, bomb, 'image/webp');
    expect(put.status).toBe(422);
    expect(put.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(put.body).toMatchObject({ type: '/problems/image-rejected', reasons: ['animation-too-large'] });
    await api.http.get(`/images/${id}`).expect(404);
  }, 60_000);

  it('refuses bytes that are not a whole image (422 undecodable)', async () => {
    const user = await registerUser(api);
    const truncated = await upload(user.bearer, PNG.subarray(0, Math.floor(PNG.length / 2)));
    expect(truncated.put.status).toBe(422);
    expect(truncated.put.body.reasons).toEqual(['undecodable']);
  });

  it('of two PUTs racing for one upload, exactly one stores its bytes; the other is 409', async () => {
    const user = await registerUser(api);
    for (let round = 0; round < 8; round++) {
      const created = await api.http.post('/uploads').set(user.bearer).expect(201);
      const put = (bytes: Buffer) =>
        api.http.put(`/uploads/${created.body.id}`).set(user.bearer).type('application/octet-stream').send(bytes);
      const [a, b] = await Promise.all([put(PNG), put(JPEG)]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const winner = a.status === 200 ? a : b;
      const loser = a.status === 200 ? b : a;
      expect(loser.body.type).toBe('/problems/upload-finished');
      const served = await imageBytes(created.body.id);
      expect(served.type).toBe(winner.body.contentType);
      expect(served.bytes.length).toBe(winner.body.byteSize);
      expect((await sharp(served.bytes).metadata()).format).toBe(winner.body.contentType === 'image/png' ? 'png' : 'jpeg');
    }
  });
});

describe('listing attachments (step 2)', () => {
  it('attaches a finished upload; the listing shows it with its public URL', async () => {
    const seller = await registerSeller(api);
    const listing = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send({ urn, condition: 'MINT', language: 'en', price: 100, quantity: 1 })
      .expect(201);
    const { id } = await upload(seller.bearer, PNG);
    const search = () => api.http.post('/seller/listings/search').set(seller.bearer).send({}).expect(200);
    expect((await search()).body.hits[0].attachments).toEqual([]);
    const attached = await api.http
      .post(`/seller/listings/${listing.body.id}/attachments`)
      .set(seller.bearer)
      .send({ imageId: id })
      .expect(201);
    expect(attached.body).toMatchObject({ imageId: id, url: `${api.config.publicBaseUrl}/images/${id}` });
    const view = await api.http.get(`/seller/listings/${listing.body.id}`).set(seller.bearer).expect(200);
    expect(view.body.attachments).toEqual([attached.body]);
    // Seller search answers are cached, but attaching moves the seller's listings version.
    expect((await search()).body.hits[0].attachments).toEqual([attached.body]);
  });

  it('is 400 for unknown, unfinished or foreign uploads and 404 for a foreign listing', async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const listing = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send({ urn, condition: 'MINT', language: 'en', price: 100, quantity: 1 })
      .expect(201);
    const attach = (who: { Authorization: string }, imageId: string, listingId = listing.body.id) =>
      api.http.post(`/seller/listings/${listingId}/attachments`).set(who).send({ imageId });

    const draft = await api.http.post('/uploads').set(seller.bearer).expect(201);
    const unfinished = await attach(seller.bearer, draft.body.id);
    expect(unfinished.status).toBe(400);
    expect(unfinished.body.type).toBe('/problems/upload-not-ready');
    expect((await attach(seller.bearer, '01890000-0000-7000-8000-000000000000')).status).toBe(400);
    const foreignUpload = await upload(other.bearer, PNG);
    expect((await attach(seller.bearer, foreignUpload.id)).status).toBe(400);
    expect((await attach(other.bearer, foreignUpload.id)).status).toBe(404);
    expect((await attach(seller.bearer, 'not-a-uuid')).status).toBe(400);
    const view = await api.http.get(`/seller/listings/${listing.body.id}`).set(seller.bearer).expect(200);
    expect(view.body.attachments).toEqual([]);
  });
});

describe('metadata of public images', () => {
  it('serves a listing image without the EXIF/GPS of the JPEG that was uploaded', async () => {
    const seller = await registerSeller(api);
    const listing = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send({ urn, condition: 'MINT', language: 'en', price: 100, quantity: 1 })
      .expect(201);
    const original = await jpegWithGps();
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const { id, put } = await upload(seller.bearer, original, 'image/jpeg');
    expect(put.status).toBe(200);
    await api.http.post(`/seller/listings/${listing.body.id}/attachments`).set(seller.bearer).send({ imageId: id }).expect(201);
    const served = await imageBytes(id);
    const meta = await sharp(served.bytes).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
    expect(meta.exif).toBeUndefined();
    expect(served.bytes.includes('TestCamMaker')).toBe(false);
    expect(served.bytes.includes('GPS')).toBe(false);
  });
});

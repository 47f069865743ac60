import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { seedCatalog } from '../support/fixtures';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest-of-a-png')]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('jfif')]);

let api: TestApi;
let dir: string;
let urn: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mts-uploads-'));
  api = await startTestApi({ env: { UPLOADS_DIR: dir, UPLOAD_MAX_BYTES: '2048' } });
  urn = (await seedCatalog(api.database.db)).items[0]!.urn;
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
    expect(put.body).toMatchObject({ id, status: 'READY', contentType: 'image/jpeg', byteSize: JPEG.length });
    const image = await api.http.get(`/images/${id}`).expect(200);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(image.body as Buffer, JPEG)).toBe(0);
    // Bytes are set once.
    await api.http.put(`/uploads/${id}`).set(user.bearer).set('Content-Type', 'image/png').send(PNG).expect(409);
  });

  it('refuses non-images, oversized bodies, other media types and other users', async () => {
    const user = await registerUser(api);
    const stranger = await registerUser(api);
    const notImage = await upload(user.bearer, Buffer.from('GIF89a-not-accepted'));
    expect(notImage.put.status).toBe(415);
    expect(notImage.put.body.type).toBe('/problems/unsupported-image-type');
    const tooBig = await upload(user.bearer, Buffer.concat([PNG, Buffer.alloc(4096)]));
    expect(tooBig.put.status).toBe(413);
    const textual = await upload(user.bearer, PNG, 'text/plain');
    expect(textual.put.status).toBe(415);
    const created = await api.http.post('/uploads').set(user.bearer).expect(201);
    await api.http.put(`/uploads/${created.body.id}`).set(stranger.bearer).set('Content-Type', 'image/png').send(PNG).expect(404);
    // A draft is not an image yet.
    await api.http.get(`/images/${created.body.id}`).expect(404);
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

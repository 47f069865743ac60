import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUploadActivities } from '../../activities/uploads';
import { LocalDiskImageStorage } from '../../src/integrations/images/storage';
import { UploadCollector } from '../../src/services/retention/upload-collector';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog } from '../support/fixtures';
import { png } from '../support/images';

/** The upload collector's activity on Postgres and the local disk storage the API writes. */
let api: TestApi;
let dir: string;
let urn: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mts-upload-collector-'));
  api = await startTestApi({ env: { UPLOADS_DIR: dir } });
  urn = (await seedCatalog(api.database.db)).items[0]!.urn;
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const storage = () => new LocalDiskImageStorage(dir);
const activities = () => createUploadActivities({ uploadCollector: new UploadCollector(api.database.db, storage()) });
const DAY = 86_400_000;

async function upload(user: TestUser, finish = true): Promise<string> {
  const id = (await api.http.post('/uploads').set(user.bearer).expect(201)).body.id as string;
  if (finish)
    await api.http
      .put(`/uploads/${id}`)
      .set(user.bearer)
      .type('image/png')
      .send(await png())
      .expect(200);
  return id;
}

const age = (ids: string[], hours: number) =>
  api.database.db.query(`UPDATE uploads SET created_at = now() - make_interval(hours => $2) WHERE id = ANY($1::uuid[])`, [ids, hours]);
const exists = async (id: string) => (await api.database.db.query(`SELECT 1 FROM uploads WHERE id = $1`, [id])).length === 1;

describe('collectUploads (on Postgres)', () => {
  it('deletes unattached uploads older than the bound with their bytes, and nothing attached or young', async () => {
    const seller = await registerSeller(api);
    const [oldReady, oldDraft, young, attached] = [
      await upload(seller),
      await upload(seller, false),
      await upload(seller),
      await upload(seller),
    ];
    const listing = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send({ urn, condition: 'MINT', language: 'en', price: 100, quantity: 1 })
      .expect(201);
    await api.http.post(`/seller/listings/${listing.body.id}/attachments`).set(seller.bearer).send({ imageId: attached }).expect(201);
    // An avatar is a derived upload the account points at by URL.
    await api.http.patch('/user/account').set(seller.bearer).send({ avatar: young }).expect(200);
    const [{ avatar }] = await api.database.db.query(`SELECT right(avatar_url, 36) AS avatar FROM users WHERE id = $1`, [seller.id]);
    await age([oldReady, oldDraft, attached, avatar], 25);
    expect(await storage().get(oldReady)).not.toBeNull();

    expect(await activities().collectUploads(DAY)).toBeGreaterThanOrEqual(2);
    expect(await exists(oldReady)).toBe(false);
    expect(await exists(oldDraft)).toBe(false);
    expect(await storage().get(oldReady)).toBeNull();
    await api.http.get(`/images/${oldReady}`).expect(404);
    for (const kept of [young, attached, avatar]) expect(await exists(kept)).toBe(true);
    await api.http.get(`/images/${attached}`).expect(200);
    await api.http.get(`/images/${avatar}`).expect(200);
    // Nothing left to do: a second run deletes nothing of the seller's.
    await activities().collectUploads(DAY);
    for (const kept of [young, attached, avatar]) expect(await exists(kept)).toBe(true);
  });

  it('leaves an upload that an attachment is holding, and a listing attach after the collection finds no upload', async () => {
    const seller = await registerSeller(api);
    const id = await upload(seller);
    await age([id], 48);
    // An attach in progress holds the row (FOR SHARE, as SellerListings.attach does): skipped.
    const runner = api.database.db.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT id FROM uploads WHERE id = $1 FOR SHARE`, [id]);
      await activities().collectUploads(DAY);
      expect(await exists(id)).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await activities().collectUploads(DAY);
    expect(await exists(id)).toBe(false);
    const listing = await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send({ urn, condition: 'MINT', language: 'en', price: 100, quantity: 1 })
      .expect(201);
    const res = await api.http.post(`/seller/listings/${listing.body.id}/attachments`).set(seller.bearer).send({ imageId: id }).expect(400);
    expect(res.body.type).toBe('/problems/upload-not-ready');
  });
});

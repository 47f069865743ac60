// The API under the image attachment bench (bench/images/attachments.ts): the real app on a fresh
// test database in this process, with `count` buyers who each have a message in a conversation
// about an order. Prints one JSON line `{baseUrl, pid, people: [{bearer, conversationId, messageId}]}`,
// then serves until killed.
import { randomBytes } from 'node:crypto';
import { connectAndMigrate } from '../../src/db/data-source';
import { registerUser, startTestApi } from '../../test/support/api';
import { ADMIN_DATABASE_URL, databaseUrl } from '../../test/support/env';
import { adminQuery } from '../support';
import { insertPurchase } from '../../test/support/orders';

async function main() {
  const count = Number(process.argv[2] ?? 20);
  const name = `mts_bench_images_${randomBytes(4).toString('hex')}`;
  await adminQuery(ADMIN_DATABASE_URL, `CREATE DATABASE ${name}`);
  const url = databaseUrl(name);
  const db = await connectAndMigrate({ url, poolSize: 10 });
  const database = { url, db, close: () => db.destroy() };
  const api = await startTestApi({ database, env: { UPLOADS_DIR: process.argv[3] ?? '.data/bench-uploads' } });
  const people = [];
  for (let i = 0; i < count; i += 1) {
    const buyer = await registerUser(api, 'imgbuyer');
    const seller = await registerUser(api, 'imgseller');
    const { orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id], orderStatus: 'SHIPPED' });
    const opened = await api.http
      .post('/conversations')
      .set(buyer.bearer)
      .send({ source: { id: orderIds[0] }, recipientId: seller.id, body: 'photo' })
      .expect(201);
    const message = await api.http.post(`/conversations/${opened.body.id}/messages`).set(buyer.bearer).send({ body: 'see' }).expect(201);
    people.push({ bearer: buyer.bearer.Authorization, conversationId: opened.body.id, messageId: message.body.id });
  }
  const stop = async () => {
    await api.close();
    await database.close();
    await adminQuery(ADMIN_DATABASE_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.stdout.write(`${JSON.stringify({ baseUrl: api.baseUrl, pid: process.pid, people })}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

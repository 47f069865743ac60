import { enqueueEmail } from '../../src/integrations/email/outbox';
import { EmailOutbox } from '../../src/services/email/outbox';
import { startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const queue = (to: string, subject: string) =>
  api.database.db.transaction((tx) => enqueueEmail(tx, { to, subject, text: subject, kind: 'test' }));

describe('EmailOutbox (on Postgres)', () => {
  it("lists an address's messages newest first, whatever the address's case, and no one else's", async () => {
    const to = `Reader-${Date.now()}@Example.test`;
    const first = await queue(to, 'first');
    const second = await queue(to.toLowerCase(), 'second');
    await queue(`other-${Date.now()}@example.test`, 'not theirs');

    const messages = await new EmailOutbox(api.database.db).recentTo(to.toUpperCase());
    expect(messages.map((m) => [m.id, m.subject])).toEqual([
      [second, 'second'],
      [first, 'first'],
    ]);
  });

  it('stops at the limit', async () => {
    const to = `many-${Date.now()}@example.test`;
    for (let i = 0; i < 3; i++) await queue(to, `m${i}`);
    expect((await new EmailOutbox(api.database.db).recentTo(to, 2)).map((m) => m.subject)).toEqual(['m2', 'm1']);
  });
});

import { createEmailActivities } from '../../activities/email';
import { EmailChangeCodes } from '../../src/services/email/email-change-codes';
import { EmailDelivery } from '../../src/services/email/outbox';
import { EmailChangeRequest, EmailMessage } from '../../src/db/entities';
import type { MailMessage, MailTransport } from '../../src/integrations/email/transport';
import { hmacCode } from '../../src/services/auth/secrets';
import { EMAIL_CHANGE_CODE_SCOPE } from '../../src/services/email-change';
import { registerUser, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
const sent: MailMessage[] = [];
const transport: MailTransport = { name: 'memory', send: async (m) => void sent.push(m) };
const key = new TextEncoder().encode('activity-test-key-activity-test-key');

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const activities = () =>
  createEmailActivities({
    emailChangeCodes: new EmailChangeCodes(api.database.db, { codeKey: key, codeTtlSeconds: 600 }),
    emailDelivery: new EmailDelivery(api.database.db, transport, 'test@marketplace'),
  });

async function pendingRequest(): Promise<EmailChangeRequest> {
  const user = await registerUser(api);
  const repo = api.database.db.getRepository(EmailChangeRequest);
  const id = crypto.randomUUID();
  await repo.insert({ id, userId: user.id, newEmail: `new-${id}@example.test`, attempts: 0, expiresAt: new Date(Date.now() + 60_000) });
  return repo.findOneByOrFail({ id });
}

describe('email activities (on Postgres)', () => {
  it('issues a code once: stores only its HMAC and queues one message carrying it', async () => {
    const request = await pendingRequest();
    const first = await activities().issueEmailChangeCode(request.id);
    const again = await activities().issueEmailChangeCode(request.id);
    expect(first).toBeTruthy();
    expect(again).toBe(first);

    const messages = await api.database.db.getRepository(EmailMessage).findBy({ to: request.newEmail });
    expect(messages).toHaveLength(1);
    const code = /code is (\d{6})/.exec(messages[0]!.text)![1]!;
    const stored = await api.database.db.getRepository(EmailChangeRequest).findOneByOrFail({ id: request.id });
    expect(stored.codeHash).toBe(hmacCode(key, EMAIL_CHANGE_CODE_SCOPE, code));
    expect(stored.codeHash).not.toContain(code);
  });

  it('issues nothing for a superseded request', async () => {
    const request = await pendingRequest();
    await api.database.db.getRepository(EmailChangeRequest).update({ id: request.id }, { supersededAt: new Date() });
    expect(await activities().issueEmailChangeCode(request.id)).toBeNull();
    expect(await api.database.db.getRepository(EmailMessage).countBy({ to: request.newEmail })).toBe(0);
  });

  it('delivers a message once and stamps it', async () => {
    const request = await pendingRequest();
    const messageId = (await activities().issueEmailChangeCode(request.id))!;
    sent.length = 0;
    await activities().deliverEmail(messageId);
    await activities().deliverEmail(messageId);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: request.newEmail, from: 'test@marketplace', messageId });
    const message = await api.database.db.getRepository(EmailMessage).findOneByOrFail({ id: messageId });
    expect(message.deliveredAt).toBeInstanceOf(Date);
  });
});

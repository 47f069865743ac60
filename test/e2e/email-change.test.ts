import { accountWorkflowIds } from '../../src/modules/account';
import { registerUser } from '../support/api';
import { apiClient, expectStatus } from '../support/client';
import { eventually, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack?.stop());

describe('e-mail change, end to end (API → Temporal dev server → worker → Postgres)', () => {
  it('sends a code through the workflow; a wrong code changes nothing; the right one works once', async () => {
    const { api, env } = stack;
    const user = await registerUser(api);
    const newEmail = `changed-${user.username}@example.test`;
    const client = apiClient(api, user.bearer);

    await expectStatus(client.PATCH('/user/account/email', { body: { email: newEmail } }), 204);

    const message = await eventually(async () => {
      const rows = await api.database.db.query(
        `SELECT m.body_text, r.id AS request_id FROM email_messages m
           JOIN email_change_requests r ON r.message_id = m.id
          WHERE m.to_address = $1 AND m.delivered_at IS NOT NULL`,
        [newEmail],
      );
      return rows[0] as { body_text: string; request_id: string } | undefined;
    });
    const code = /code is (\d{6})/.exec(message.body_text)![1]!;

    // The workflow that sent it is visible to operators under its deterministic id.
    // (The activity stamps delivered_at just before the workflow completes, so wait for its result.)
    const handle = env.client.workflow.getHandle(accountWorkflowIds.emailChange(message.request_id));
    await handle.result();
    const description = await handle.describe();
    expect(description.type).toBe('emailChangeWorkflow');
    expect(description.status.name).toBe('COMPLETED');

    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await client.PUT('/user/account/email', { body: { email: newEmail, code: wrongCode } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error!.type).toBe('/problems/invalid-verification-code');
    const unchanged = await api.database.db.query('SELECT email FROM users WHERE id = $1', [user.id]);
    expect(unchanged[0].email).toBe(user.email);

    await expectStatus(client.PUT('/user/account/email', { body: { email: newEmail, code } }), 204);
    const changed = await api.database.db.query('SELECT email FROM users WHERE id = $1', [user.id]);
    expect(changed[0].email).toBe(newEmail);

    // Single use: the same code again is refused; nothing waits for a code any more.
    const again = await client.PUT('/user/account/email', { body: { email: newEmail, code } });
    expect(again.response.status).toBe(409);
    expect(again.error!.type).toBe('/problems/no-pending-email-change');
    // And the user now signs in with the new address.
    await expectStatus(
      apiClient(api).POST('/oauth/token', { body: { grant_type: 'password', username: newEmail, password: user.password } }),
      200,
    );
  });

  it('retires a request after too many wrong guesses', async () => {
    const { api } = stack;
    const user = await registerUser(api);
    const newEmail = `guess-${user.username}@example.test`;
    const client = apiClient(api, user.bearer);
    await expectStatus(client.PATCH('/user/account/email', { body: { email: newEmail } }), 204);
    const body = await eventually(async () => {
      const rows = await api.database.db.query(`SELECT body_text FROM email_messages WHERE to_address = $1`, [newEmail]);
      return rows[0]?.body_text as string | undefined;
    });
    const code = /code is (\d{6})/.exec(body)![1]!;
    const wrong = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < api.config.emailChange.maxAttempts; i++) {
      await expectStatus(client.PUT('/user/account/email', { body: { email: newEmail, code: wrong } }), 400);
    }
    // Retired: even the right code finds nothing waiting for it.
    const retired = await client.PUT('/user/account/email', { body: { email: newEmail, code } });
    expect(retired.response.status).toBe(409);
    expect(retired.error!.type).toBe('/problems/no-pending-email-change');
    const unchanged = await api.database.db.query('SELECT email FROM users WHERE id = $1', [user.id]);
    expect(unchanged[0].email).toBe(user.email);
  });

  it('refuses an address that belongs to another account', async () => {
    const { api } = stack;
    const a = await registerUser(api);
    const b = await registerUser(api);
    const res = await apiClient(api, a.bearer).PATCH('/user/account/email', { body: { email: b.email.toUpperCase() } });
    expect(res.response.status).toBe(409);
  });

  it('tells a confirmation with nothing requested, and a change to the same address, apart from a wrong code', async () => {
    const { api } = stack;
    const user = await registerUser(api);
    const client = apiClient(api, user.bearer);
    const nothing = await client.PUT('/user/account/email', { body: { email: `never-${user.username}@example.test`, code: '123456' } });
    expect(nothing.response.status).toBe(409);
    expect(nothing.error!.type).toBe('/problems/no-pending-email-change');
    const same = await client.PATCH('/user/account/email', { body: { email: user.email.toUpperCase() } });
    expect(same.response.status).toBe(409);
    expect(same.error!.type).toBe('/problems/email-unchanged');
  });
});

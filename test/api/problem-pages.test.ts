import { PROBLEM_TYPES, type ProblemCode } from '../../src/domain/problem-types';
import { registerUser, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('problem type URIs resolve to a page describing the problem', () => {
  it('serves a page for every catalogued code, with its status and when it is answered', async () => {
    for (const [code, type] of Object.entries(PROBLEM_TYPES) as Array<[ProblemCode, { status: number }]>) {
      const page = await api.http.get(`/problems/${code}`).expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain(`<h1>${code}</h1>`);
      expect(page.text).toContain(`HTTP status ${type.status}`);
    }
    const page = await api.http.get('/problems/address-limit-reached').expect(200);
    // The catalogue's markdown: code spans kept, links shown as their text.
    expect(page.text).toContain('An 11th saved address (see account.md).');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it("resolves the type of a problem the API answers, relative to the API's base URL", async () => {
    const user = await registerUser(api);
    const refused = await api.http.post('/user/personal-access-tokens').set(user.bearer).send({ name: '' }).expect(400);
    const page = await api.http.get(refused.body.type).expect(200);
    expect(page.text).toContain('<h1>validation-failed</h1>');
  });

  it('answers 404 for a code no problem type has', async () => {
    const res = await api.http.get('/problems/no-such-problem').expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    await api.http.get('/problems/Not_A_Code').expect(400);
  });
});

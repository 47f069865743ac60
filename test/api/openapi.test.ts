import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (checked by swagger-parser)', async () => {
    const res = await api.http.get('/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('0.0.0');
    // validate() throws on any schema or reference error.
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it('documents the security schemes and every route of the table', async () => {
    const doc = (await api.http.get('/openapi.json')).body;
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['ApiKey', 'Bearer', 'Operator', 'ThirdPartyApp']);
    expect(doc.paths['/operator/audit-log'].get.security).toEqual([{ Operator: [] }]);
    expect(doc.components.securitySchemes.ThirdPartyApp.flows.authorizationCode).toMatchObject({
      authorizationUrl: '/oauth/authorize',
      tokenUrl: '/oauth/token',
    });
    expect(doc.paths['/user/personal-access-tokens'].delete.security).toEqual([{ Bearer: [] }]);
    expect(doc.paths['/user/applications'].get.security).toEqual([{ Bearer: [] }]);
    expect(doc.paths['/seller/status'].get.security).toEqual([{ Bearer: [] }, { ApiKey: [] }, { ThirdPartyApp: [] }]);
    expect(doc.paths['/auth/register'].post.security).toEqual([]);
    expect(doc.paths['/oauth/token'].post.requestBody.content).toHaveProperty('application/x-www-form-urlencoded');
  });
});

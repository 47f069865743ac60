import SwaggerParser from '@apidevtools/swagger-parser';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

type Json = Record<string, unknown>;
interface Operation {
  security: unknown[];
  parameters: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: Json; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
}

const document = async () =>
  (await api.http.get('/openapi.json').expect(200)).body as {
    info: Json;
    tags: Array<{ name: string; description?: string }>;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
  };

const operations = (doc: Awaited<ReturnType<typeof document>>) =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

/** Every schema node of the document, with where it is. */
function* nodes(value: unknown, at = '#'): Generator<[string, Json]> {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* nodes(v, `${at}/${i}`);
  } else if (value && typeof value === 'object') {
    yield [at, value as Json];
    for (const [k, v] of Object.entries(value)) yield* nodes(v, `${at}/${k}`);
  }
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (checked by swagger-parser)', async () => {
    const doc = await document();
    expect((doc as unknown as Json).openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.0.0');
    expect(doc.info.license).toMatchObject({ name: expect.any(String) });
    // validate() throws on any schema or reference error.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('documents the security schemes and every route of the table', async () => {
    const doc = await document();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['ApiKey', 'Bearer', 'Operator', 'ThirdPartyApp']);
    expect(doc.paths['/operator/audit-log']!.get!.security).toEqual([{ Operator: [] }]);
    expect(doc.components.securitySchemes.ThirdPartyApp).toMatchObject({
      flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token' } },
    });
    expect(doc.paths['/user/personal-access-tokens']!.delete!.security).toEqual([{ Bearer: [] }]);
    expect(doc.paths['/user/applications']!.get!.security).toEqual([{ Bearer: [] }]);
    expect(doc.paths['/seller/status']!.get!.security).toEqual([{ Bearer: [] }, { ApiKey: [] }, { ThirdPartyApp: [] }]);
    expect(doc.paths['/auth/register']!.post!.security).toEqual([]);
    expect(doc.paths['/oauth/token']!.post!.requestBody!.content).toHaveProperty('application/x-www-form-urlencoded');
  });

  it('publishes what generators need: named components, maps, no leaked Joi references or empty conditionals', async () => {
    const doc = await document();
    // A nullable reference is `anyOf: [$ref, {type: 'null'}]`: `{const: null}` makes generators type it `unknown`.
    expect(JSON.stringify(doc)).not.toContain('"const":null');
    expect((doc.components.schemas.Listing!.properties as Record<string, Json>).seller).toEqual({
      anyOf: [{ $ref: '#/components/schemas/UserSummary' }, { type: 'null' }],
    });
    expect(((doc.components.schemas.Listing!.properties as Record<string, Json>).variants as Json).items).toMatchObject({ type: 'object' });
    for (const name of [
      'User',
      'Listing',
      'Item',
      'Order',
      'WebhookEndpoint',
      'Basket',
      'Problem',
      'ValidationProblem',
      'OAuthError',
      'TokenRequest',
    ]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
    // Conditional bodies are a oneOf of named shapes with a discriminator.
    expect(doc.components.schemas.TokenRequest).toMatchObject({
      oneOf: [
        { $ref: '#/components/schemas/TokenRequestPassword' },
        { $ref: '#/components/schemas/TokenRequestRefreshToken' },
        { $ref: '#/components/schemas/TokenRequestAuthorizationCode' },
      ],
      discriminator: { propertyName: 'grant_type' },
    });
    expect(doc.components.schemas.TokenRequestRefreshToken).toMatchObject({ required: ['grant_type', 'refresh_token'] });
    expect(Object.keys(doc.components.schemas.TokenRequestRefreshToken!.properties as Json)).not.toContain('password');
    // `.xor(urn, slug)`: one shape per peer.
    expect(doc.components.schemas.ListingSearch).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/ListingSearchByUrn' }, { $ref: '#/components/schemas/ListingSearchBySlug' }],
    });
    // Maps: webhook custom headers, basket delivery choices, bulk creation elements.
    expect((doc.components.schemas.WebhookEndpoint!.properties as Json).headers).toEqual({
      type: 'object',
      additionalProperties: { type: 'string', minLength: 1 },
      propertyNames: { type: 'string', minLength: 1, not: { const: '__proto__' } },
    });
    expect(doc.paths['/seller/listings/bulk']!.post!.requestBody!.content['application/json']!.schema).toMatchObject({
      properties: { listings: { items: { anyOf: [{ $ref: '#/components/schemas/ListingInput' }, { type: 'object' }] } } },
    });

    for (const [at, node] of nodes(doc)) {
      for (const keyword of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']) {
        if (keyword in node && !at.endsWith('/properties')) expect([at, typeof node[keyword]]).toEqual([at, 'number']);
      }
      const emptyClosed = node.type === 'object' && node.additionalProperties === false && !node.properties;
      expect([at, emptyClosed]).toEqual([at, false]);
      for (const keyword of ['if', 'then', 'else']) {
        if (!at.endsWith('/properties')) expect([at, keyword in node]).toEqual([at, false]);
      }
      if (node.not) expect([at, Object.keys(node.not as Json).length]).not.toEqual([at, 0]);
    }
  });

  it('publishes what Joi enforces, so that data valid by the document is not refused (found by schemathesis)', async () => {
    const doc = await document();
    const query = (path: string, method: string, name: string) =>
      (doc.paths[path]![method]!.parameters as unknown as Array<{ name: string; schema: Json }>).find((p) => p.name === name)!.schema;
    const body = (path: string, method: string) => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
    // Joi refuses '' unless allowed: minLength 1; allowed (`.allow('')`, `.empty('')`): no minLength.
    const conversation = body('/conversations', 'post');
    expect((conversation.properties as Record<string, Json>).body).toMatchObject({ type: 'string', minLength: 1 });
    const listingInput = doc.components.schemas.ListingInput!.properties as Record<string, Json>;
    expect(listingInput.comment).not.toHaveProperty('minLength');
    expect(listingInput.notes).not.toHaveProperty('minLength');
    // Trimmed and refused empty: something besides white space.
    expect((doc.components.schemas.DeliveryAddress!.properties as Record<string, Json>).postal_code).toMatchObject({
      pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$',
    });
    // Every pattern of a string, not only the last (a catalog URN's shape and its last character).
    expect(query('/search', 'get', 'series')).toMatchObject({
      pattern: '^[A-Za-z0-9._~-]+(\\/[A-Za-z0-9._~-]+)*\\/?$',
      allOf: [{ pattern: '[^/]$' }],
    });
    // An object's key count; alternatives that also allow null.
    expect(body('/seller/webhooks/{webhookId}', 'patch')).toMatchObject({ minProperties: 1 });
    expect(((listingInput.variants as Json).items as Json).additionalProperties).toEqual({
      anyOf: [
        { type: 'string', maxLength: 100, minLength: 1 },
        // Joi refuses unsafe numbers.
        { type: 'number', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        { type: 'boolean' },
        { type: 'null' },
      ],
    });
    // Webhook custom headers: the reserved names are not allowed, in any case; the value's characters.
    const headers = (body('/seller/webhooks', 'post').properties as Record<string, Json>).headers as Json;
    const reserved = new RegExp((((headers.propertyNames as Json).allOf as Json[])[0]!.not as Json).pattern as string, 'u');
    expect(['te', 'Content-Type', 'webhook-id', 'Proxy-Foo'].filter((n) => reserved.test(n))).toHaveLength(4);
    expect(['x-te', 'X-Tenant', 'Content-Typed'].filter((n) => reserved.test(n))).toHaveLength(0);
    expect(headers.additionalProperties).toMatchObject({ pattern: '^[\\t\\x20-\\x7E\\xA0-\\xFF]*$' });
    // Message bodies: white space alone is empty.
    expect(((body('/conversations/{id}/messages', 'post').properties as Record<string, Json>).body as Json).pattern).toBeDefined();
    // A change of an address needs a field besides the ignored `isValidated`.
    const addressPatch = body('/user/addresses/{id}', 'patch');
    expect(addressPatch.anyOf).toContainEqual({ required: ['line1'] });
    expect(addressPatch.anyOf).not.toContainEqual({ required: ['isValidated'] });
    // Open objects and maps: any key but `__proto__`, which the JSON body parser refuses.
    expect((((listingInput.variants as Json).items as Json).propertyNames as Json).not).toEqual({ const: '__proto__' });
    const poisoned = await api.http
      .post('/seller/listings/bulk')
      .set('Content-Type', 'application/json')
      .send('{"listings": [{"variants": [{"__proto__": 1}]}]}');
    expect(poisoned.status).toBe(400);
    // A date range's end is a date-time; pages end where Joi's safe numbers end.
    expect(query('/seller/orders', 'get', 'createdTo')).toEqual({ type: 'string', format: 'date-time' });
    expect(query('/user/purchases', 'get', 'page')).toMatchObject({ maximum: Number.MAX_SAFE_INTEGER });
    // A URI Joi limits to http(s) says so: `format: uri` alone admits mailto:, urn:…
    const successUrl = (body('/basket/{id}/checkout', 'post').properties as Record<string, Json>).successUrl as Json;
    expect(successUrl).toMatchObject({ format: 'uri', pattern: '^(?:[hH][tT][tT][pP]|[hH][tT][tT][pP][sS]):' });
    const scheme = new RegExp(successUrl.pattern as string);
    expect(['https://shop.example/ok', 'HTTP://x.example'].every((u) => scheme.test(u))).toBe(true);
    expect(['mailto:a@b.example', 'urn:x', 'httpx://a'].some((u) => scheme.test(u))).toBe(false);
    // A listing search filter's value depends on its op and field: one shape per (op, field kind).
    const filterShapes = (((body('/seller/listings/search', 'post').properties as Record<string, Json>).filters as Json).items as Json)
      .anyOf as Json[];
    const shapeOf = (op: string, field: string) =>
      filterShapes.filter((shape) => {
        const p = shape.properties as Record<string, Json>;
        return (p.op!.const === op || (p.op!.enum as string[] | undefined)?.includes(op)) && (p.field!.enum as string[]).includes(field);
      });
    expect(shapeOf('in', 'price').map((shape) => (shape.properties as Record<string, Json>).value!.type)).toEqual(['array']);
    expect(shapeOf('lt', 'price').map((shape) => (shape.properties as Record<string, Json>).value!.type)).toEqual(['integer']);
    expect(shapeOf('eq', 'notes').map((shape) => (shape.properties as Record<string, Json>).value!.type)).toEqual(['string']);
    expect(shapeOf('gte', 'createdAt').map((shape) => (shape.properties as Record<string, Json>).value!.format)).toEqual(['date-time']);
    const scalarIn = await api.http
      .post('/seller/listings/search')
      .set((await registerSeller(api)).bearer)
      .send({ filters: [{ field: 'price', op: 'in', value: 3 }] });
    expect(scalarIn.status).toBe(400);
    // A redirect URI's rule (https, or http on a loopback host; no fragment) is published as a pattern.
    const redirectUris = (body('/operator/oauth-apps', 'post').properties as Record<string, Json>).redirectUris as Json;
    const redirectShape = new RegExp((redirectUris.items as Json).pattern as string);
    expect(['https://deckbuilder.example/cb', 'http://localhost:3000/cb', 'http://[::1]/cb'].every((u) => redirectShape.test(u))).toBe(
      true,
    );
    expect(['http://deckbuilder.example/cb', 'https://deckbuilder.example/cb#x', 'deckbuilder'].some((u) => redirectShape.test(u))).toBe(
      false,
    );
  });

  it('documents the response headers clients read, on the responses that carry them', async () => {
    const doc = (await document()) as unknown as {
      components: { headers: Record<string, Json> };
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { $ref: string }> }> }>>;
    };
    expect(Object.keys(doc.components.headers).sort()).toEqual(['Idempotent-Replayed', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id']);
    const responses = doc.paths['/user/addresses']!.post!.responses;
    expect(Object.keys(responses['201']!.headers!).sort()).toEqual(['Idempotent-Replayed', 'X-Request-Id']);
    expect(responses['401']!.headers!['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WWW-Authenticate' });
    expect(responses['401']!.headers).not.toHaveProperty('Idempotent-Replayed');
    // A token's answer holds its secret and is never replayed: no replay marker documented.
    expect(doc.paths['/user/personal-access-tokens']!.post!.responses['201']!.headers).not.toHaveProperty('Idempotent-Replayed');
    // What the document promises is what a client gets: the id, and the replay marker on a retry.
    const user = await registerUser(api);
    const address = { type: 'shipping', line1: 'Mannerheimintie 1', city: 'Helsinki', state: '', postalCode: '00100', country: 'FI' };
    const save = () => api.http.post('/user/addresses').set(user.bearer).set('Idempotency-Key', `headers-${user.id}`).send(address);
    const first = await save();
    expect(first.status).toBe(201);
    expect(first.headers['x-request-id']).toEqual(expect.any(String));
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await save();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const unauthenticated = await api.http.get('/user/personal-access-tokens').expect(401);
    expect(unauthenticated.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('gives every error response a Problem (or, on the OAuth endpoints, an RFC 6749 error) body, and every tag a description', async () => {
    const doc = await document();
    let errors = 0;
    for (const { path, method, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (status !== 'default' && Number(status) < 400) continue;
        // HTML pages (the authorization page's errors) are pages, not problems.
        if (response.content?.['text/html']) continue;
        errors += 1;
        const [type, media] = Object.entries(response.content ?? {})[0] ?? [];
        const ref = (media?.schema as { $ref?: string } | undefined)?.$ref;
        expect([path, method, status, type, ref]).toEqual([
          path,
          method,
          status,
          expect.stringMatching(/^application\/(problem\+)?json$/),
          expect.stringMatching(/^#\/components\/schemas\/(\w*Problem|OAuthError)$/),
        ]);
      }
    }
    expect(errors).toBeGreaterThan(200);
    expect(doc.components.schemas.ListingsUnavailableProblem).toBeDefined();
    for (const tag of doc.tags) expect([tag.name, typeof tag.description]).toEqual([tag.name, 'string']);
  });

  it('every documented request example is accepted: posted as is, it gets a declared status, never a validation failure', async () => {
    const doc = await document();
    // Each example as a caller the route admits, so that it reaches validation rather than a 403.
    const caller = await registerUser(api, 'examples');
    const seller = await registerSeller(api, 'exseller');
    const operator = await registerUser(api, 'exoperator');
    await api.services.operatorRoles.grant(operator.username, 'openapi examples');
    const callerFor = (path: string) => (path.startsWith('/operator/') ? operator : path.startsWith('/seller') ? seller : caller);
    const examples = operations(doc).flatMap(({ path, method, op }) =>
      Object.entries(op.requestBody?.content ?? {}).flatMap(([type, media]) =>
        Object.values(media.examples ?? {}).map((example) => ({ path, method, op, type, value: example.value })),
      ),
    );
    expect(examples.length).toBeGreaterThanOrEqual(72);
    const answers: Record<string, number> = {};
    for (const { path, method, op, type, value } of examples) {
      // Path parameters get well-formed ids of nothing: a 404 is then a declared, non-validation answer.
      const url = path.replace(/\{\w+\}/g, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
      const req = api.http[method as 'post'](url).type(type === 'application/json' ? 'json' : 'form');
      if (op.security.length) req.set(callerFor(path).bearer);
      const res = await req.send(value as object);
      answers[`${method} ${path} ${type}`] = res.status;
      expect([method, path, type, Object.keys(op.responses)]).toEqual([method, path, type, expect.arrayContaining([String(res.status)])]);
      expect([method, path, type, res.body?.type ?? res.body?.error]).not.toEqual([method, path, type, '/problems/validation-failed']);
      expect([method, path, type, res.body?.error]).not.toEqual([method, path, type, 'invalid_request']);
      expect([method, path, type, res.status]).not.toEqual([method, path, type, 403]);
    }
    // In document order the register example creates the account the token example signs in with.
    expect(answers).toMatchObject({
      'post /auth/register application/json': 201,
      'post /oauth/token application/json': 200,
      'post /oauth/token application/x-www-form-urlencoded': 200,
      'post /user/personal-access-tokens application/json': 201,
      'post /listings/item application/json': 200,
    });
  });

  it("Swagger UI's Execute on POST /listings/item with its own example answers 200", async () => {
    const doc = await document();
    const media = doc.paths['/listings/item']!.post!.requestBody!.content['application/json']!;
    // Swagger UI pre-fills the body with the first named example; Execute posts it unchanged.
    const example = Object.values(media.examples!)[0]!.value;
    const res = await api.http.post('/listings/item').set('Content-Type', 'application/json').send(JSON.stringify(example)).expect(200);
    expect(res.body).toEqual({ total: expect.any(Number), hits: expect.any(Array) });
  });
});

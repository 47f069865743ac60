import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/api';

/**
 * The typed client an integrator would generate from /openapi.json (openapi-typescript types,
 * openapi-fetch calls; `npm run build` regenerates the types). Tests written with it stop
 * compiling when the document changes under them, and fail when the service answers something
 * the document does not describe.
 */
export type ApiClient = Client<paths>;
export type Schemas = components['schemas'];

export function apiClient(api: { baseUrl: string }, headers: Record<string, string> = {}): ApiClient {
  return createClient<paths>({ baseUrl: api.baseUrl, headers });
}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * Awaits a typed call and checks its status (the failure names the call and quotes the body,
 * as supertest's `.expect(status)` did); returns the answer with its typed `data` / `error`.
 */
export async function expectStatus<R extends Answer>(call: Promise<R>, status: number): Promise<R> {
  const answer = await call;
  if (answer.response.status !== status) {
    throw new Error(
      `expected ${status}, got ${answer.response.status} from ${answer.response.url}: ${JSON.stringify(answer.error ?? answer.data)}`,
    );
  }
  return answer;
}

/** The typed body of a call answered with `status` (200 unless given). */
export async function dataOf<R extends Answer>(call: Promise<R>, status = 200): Promise<NonNullable<R['data']>> {
  const answer = await expectStatus(call, status);
  if (answer.data === undefined) throw new Error(`${answer.response.url} answered ${status} without a body`);
  return answer.data as NonNullable<R['data']>;
}

/** How a raw text body (a CSV file) goes out as it is, with its media type. */
export const rawText = (contentType: string) => ({
  bodySerializer: (body: string) => body,
  headers: { 'Content-Type': contentType },
});

/** The JSON request body the document declares for a route, e.g. `JsonBody<'/user/purchases/{id}', 'put'>`. */
export type JsonBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

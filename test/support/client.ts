import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/api';
import type { TestApi } from './api';

/**
 * The typed client an integrator would generate from /openapi.json (openapi-typescript types,
 * openapi-fetch calls; `npm run build` regenerates the types). Tests written with it stop
 * compiling when the document changes under them, and fail when the service answers something
 * the document does not describe.
 */
export type ApiClient = Client<paths>;
export type Schemas = components['schemas'];

export function apiClient(api: TestApi, headers: Record<string, string> = {}): ApiClient {
  return createClient<paths>({ baseUrl: api.baseUrl, headers });
}

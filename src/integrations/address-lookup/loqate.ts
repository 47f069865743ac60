import { DomainError } from '../../services/errors';
import {
  retrievedAddress,
  type AddressLookupProvider,
  type FindRequest,
  type LookupSuggestion,
  type RetrievedAddress,
  type SuggestionType,
} from './port';

export interface LoqateOptions {
  key: string;
  /** Service root, e.g. `https://api.addressy.com`; a local fake in tests. */
  baseUrl: string;
  timeoutMs?: number;
}

/** Loqate's error item: `Error` is a numeric code as a string. */
interface LoqateError {
  Error: string;
  Description: string;
  Cause?: string;
}

type LoqateFindItem = { Id: string; Type: string; Text: string; Highlight: string; Description: string };

/** Retrieve errors that mean "this id cannot be retrieved": the client should look up again. */
const RETRIEVE_ID_ERRORS = new Set(['1001', '1002']);
const TYPES: SuggestionType[] = ['Address', 'Container', 'Postcode', 'Street', 'BuildingNumber'];

/**
 * The provider's own words (an error description, an HTTP status, a socket error) go to the log
 * as the cause, never into the answer: they may name the account, the key's state or the network.
 */
const unavailableBecause = (detail: string) =>
  new DomainError(
    'unavailable',
    'address-lookup-unavailable',
    'The address lookup service is unavailable; try again shortly or enter the address by hand.',
    {},
    { cause: new Error(`loqate: ${detail}`) },
  );

/**
 * Production adapter for Loqate Capture Interactive Find (v1.10) and Retrieve (v1.2), JSON
 * (`json3.ws`). Loqate answers HTTP 200 with an `Items` array holding either results or one
 * error item; errors other than "id invalid / not available" surface as 503.
 */
export class LoqateAddressLookup implements AddressLookupProvider {
  readonly name = 'loqate';
  readonly coverage = 'worldwide (Loqate)';

  constructor(private readonly options: LoqateOptions) {}

  async find({ text, container, countries }: FindRequest): Promise<LookupSuggestion[]> {
    const params: Record<string, string> = { Key: this.options.key, Text: text, IsMiddleware: 'true', Limit: '10', Language: 'en' };
    if (container) params.Container = container;
    if (countries?.length) params.Countries = countries.join(',');
    const items = await this.call<LoqateFindItem>('/Capture/Interactive/Find/v1.10/json3.ws', params);
    if ('error' in items) throw unavailableBecause(items.error.Description);
    return items.rows.map((item) => ({
      id: item.Id,
      type: TYPES.includes(item.Type as SuggestionType) ? (item.Type as SuggestionType) : 'Address',
      text: item.Text,
      // Loqate appends the description's ranges after a ';'; the spec's highlight is the text's.
      highlight: (item.Highlight ?? '').split(';')[0]!,
      description: item.Description ?? '',
    }));
  }

  async retrieve(id: string): Promise<RetrievedAddress | null> {
    const items = await this.call<Record<string, string>>('/Capture/Interactive/Retrieve/v1.2/json3.ws', { Key: this.options.key, Id: id });
    if ('error' in items) {
      if (RETRIEVE_ID_ERRORS.has(items.error.Error)) return null;
      throw unavailableBecause(items.error.Description);
    }
    // One item per language of the address; the first is the domestic form.
    const a = items.rows[0];
    if (!a) return null;
    return retrievedAddress({
      id: a.Id ?? id,
      department: a.Department,
      company: a.Company,
      subBuilding: a.SubBuilding,
      buildingNumber: a.BuildingNumber,
      buildingName: a.BuildingName,
      secondaryStreet: a.SecondaryStreet,
      street: a.Street,
      block: a.Block,
      neighbourhood: a.Neighbourhood,
      district: a.District,
      city: a.City,
      line1: a.Line1,
      line2: a.Line2,
      line3: a.Line3,
      line4: a.Line4,
      line5: a.Line5,
      adminArea: a.AdminAreaName,
      adminAreaCode: a.AdminAreaCode,
      state: a.ProvinceName || a.Province,
      stateCode: a.ProvinceCode,
      postalCode: a.PostalCode,
      country: a.CountryName,
      countryIso2: a.CountryIso2,
      countryIso3: a.CountryIso3,
      countryIsoNumber: a.CountryIsoNumber !== undefined ? String(a.CountryIsoNumber) : undefined,
      sortingNumber1: a.SortingNumber1,
      sortingNumber2: a.SortingNumber2,
      barcode: a.Barcode,
      poBoxNumber: a.POBoxNumber,
      label: a.Label,
      type: a.Type,
    });
  }

  private async call<T>(path: string, params: Record<string, string>): Promise<{ rows: T[] } | { error: LoqateError }> {
    const url = new URL(path, this.options.baseUrl);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    let text: string;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000) });
      text = await res.text();
      // The start of what the provider said is what an operator needs to see in the log.
      if (!res.ok) throw unavailableBecause(`HTTP ${res.status}: ${text.slice(0, 300)}`);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw unavailableBecause(err instanceof Error ? err.message : String(err));
    }
    let body: { Items?: Array<T | LoqateError> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw unavailableBecause(`not JSON: ${text.slice(0, 300)}`);
    }
    const items = body.Items ?? [];
    const first = items[0] as LoqateError | undefined;
    if (items.length === 1 && first && typeof first === 'object' && 'Error' in first) return { error: first };
    return { rows: items as T[] };
  }
}

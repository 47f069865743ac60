/**
 * The address lookup provider port: the find/retrieve model of commercial capture services
 * (Loqate Capture Interactive), which the spec's Lookup suggestion and Retrieved address mirror.
 */

/** `Container` drills down (pass its id back as `container`); `Address` can be retrieved. */
export type SuggestionType = 'Address' | 'Container' | 'Postcode' | 'Street' | 'BuildingNumber';

export interface LookupSuggestion {
  id: string;
  type: SuggestionType;
  text: string;
  /** Comma-separated `start-end` index ranges of `text` that matched the query. */
  highlight: string;
  description: string;
}

/** The spec's Retrieved address: every field a string, unused ones empty. */
export interface RetrievedAddress {
  id: string;
  department: string;
  company: string;
  subBuilding: string;
  buildingNumber: string;
  buildingName: string;
  secondaryStreet: string;
  street: string;
  block: string;
  neighbourhood: string;
  district: string;
  city: string;
  line1: string;
  line2: string;
  line3: string;
  line4: string;
  line5: string;
  adminArea: string;
  adminAreaCode: string;
  state: string;
  stateCode: string;
  postalCode: string;
  country: string;
  countryIso2: string;
  countryIso3: string;
  countryIsoNumber: string;
  sortingNumber1: string;
  sortingNumber2: string;
  barcode: string;
  poBoxNumber: string;
  label: string;
  type: string;
}

export const RETRIEVED_FIELDS = [
  'id',
  'department',
  'company',
  'subBuilding',
  'buildingNumber',
  'buildingName',
  'secondaryStreet',
  'street',
  'block',
  'neighbourhood',
  'district',
  'city',
  'line1',
  'line2',
  'line3',
  'line4',
  'line5',
  'adminArea',
  'adminAreaCode',
  'state',
  'stateCode',
  'postalCode',
  'country',
  'countryIso2',
  'countryIso3',
  'countryIsoNumber',
  'sortingNumber1',
  'sortingNumber2',
  'barcode',
  'poBoxNumber',
  'label',
  'type',
] as const satisfies ReadonlyArray<keyof RetrievedAddress>;

/** A retrieved address with every field present: what a provider fills, the rest empty. */
export function retrievedAddress(fields: Partial<RetrievedAddress> & { id: string }): RetrievedAddress {
  const out = {} as RetrievedAddress;
  for (const key of RETRIEVED_FIELDS) out[key] = fields[key] ?? '';
  return out;
}

export interface FindRequest {
  text: string;
  container?: string;
  /** ISO 3166-1 alpha-2 codes to search in; the provider's default when absent. */
  countries?: string[];
}

export interface AddressLookupProvider {
  readonly name: string;
  /** Where the provider finds addresses, in words a client can show when a lookup finds nothing. */
  readonly coverage: string;
  find(request: FindRequest): Promise<LookupSuggestion[]>;
  /** The full address, or null when the id is unknown or no longer available. */
  retrieve(id: string): Promise<RetrievedAddress | null>;
}

/** Highlight ranges of every case-insensitive occurrence of each query word in `text`. */
export function highlightRanges(text: string, query: string): string {
  const lower = text.toLowerCase();
  const ranges: Array<[number, number]> = [];
  for (const word of query.toLowerCase().split(/\s+/).filter(Boolean)) {
    const at = lower.indexOf(word);
    if (at >= 0) ranges.push([at, at + word.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  return merged.map(([a, b]) => `${a}-${b}`).join(',');
}

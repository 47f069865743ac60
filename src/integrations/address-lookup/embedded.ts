import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  highlightRanges,
  retrievedAddress,
  type AddressLookupProvider,
  type FindRequest,
  type LookupSuggestion,
  type RetrievedAddress,
} from './port';

/** The gazetteer built by `scripts/build-address-data.py` (see data/address-lookup/README.md). */
export const DEFAULT_GAZETTEER = path.join(__dirname, '..', '..', '..', 'data', 'address-lookup', 'helsinki.json');

interface Gazetteer {
  country: string;
  addresses: Array<[osmId: string, street: string, number: string, unit: string, postalCode: string, city: string, name: string]>;
}

interface Entry {
  id: string;
  street: string;
  number: string;
  unit: string;
  postalCode: string;
  city: string;
  name: string;
}

/** Most suggestions one find returns, as with the commercial providers' default limit. */
const FIND_LIMIT = 10;
/** A container's contents are listed whole up to this many rows. */
const CONTAINER_LIMIT = 200;

const COUNTRY = { FI: { name: 'Finland', iso3: 'FIN', number: '246' } } as const;

const line1Of = (e: Entry) => [e.street, e.number, e.unit].filter(Boolean).join(' ');
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 'es'}`;

/**
 * The embedded default: a local gazetteer of real addresses (one region) answering with the
 * provider's find/retrieve model. Ids: `FI|PC|<postcode>` (a postcode, a Container of streets),
 * `FI|ST|<postcode>|<street>` (a street in a postcode, a Container of addresses) and
 * `FI|OSM|<osm id>` (an Address).
 */
export class EmbeddedAddressLookup implements AddressLookupProvider {
  readonly name = 'embedded';
  readonly coverage = 'FI: central Helsinki only (the embedded gazetteer; configure ADDRESS_LOOKUP_PROVIDER=loqate for real coverage)';
  private readonly country: keyof typeof COUNTRY;
  private readonly byId = new Map<string, Entry>();
  private readonly byPostcode = new Map<string, Entry[]>();

  constructor(file = DEFAULT_GAZETTEER) {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Gazetteer;
    this.country = data.country as keyof typeof COUNTRY;
    for (const [osmId, street, number, unit, postalCode, city, name] of data.addresses) {
      const entry = { id: `${this.country}|OSM|${osmId}`, street, number, unit, postalCode, city, name };
      this.byId.set(entry.id, entry);
      const list = this.byPostcode.get(postalCode) ?? [];
      list.push(entry);
      this.byPostcode.set(postalCode, list);
    }
  }

  async find({ text, container, countries }: FindRequest): Promise<LookupSuggestion[]> {
    if (countries?.length && !countries.includes(this.country)) return [];
    const query = text.trim();
    if (container) return this.open(container, query);

    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    const digits = words.filter((w) => /^\d+$/.test(w));
    const names = words.filter((w) => !/^\d+$/.test(w));
    const out: LookupSuggestion[] = [];

    // A postcode (or its prefix) on its own: the postcode as a Container of its streets.
    if (!names.length && digits.length === 1) {
      for (const [postcode, entries] of [...this.byPostcode].sort(([a], [b]) => a.localeCompare(b))) {
        if (!postcode.startsWith(digits[0]!)) continue;
        out.push({
          id: `${this.country}|PC|${postcode}`,
          type: 'Container',
          text: postcode,
          highlight: `0-${digits[0]!.length}`,
          description: `${entries[0]!.city} - ${plural(entries.length, 'address')}`,
        });
      }
      return out.slice(0, FIND_LIMIT);
    }

    // Street words (and perhaps a house number): streets as Containers, or the addresses
    // themselves when the house number narrows it down.
    const streets = new Map<string, Entry[]>();
    for (const entries of this.byPostcode.values()) {
      for (const e of entries) {
        const street = e.street.toLowerCase();
        if (!names.every((w) => street.includes(w))) continue;
        const postcodeOk = digits.every((d) => d === e.number.toLowerCase() || e.postalCode.startsWith(d));
        if (!postcodeOk) continue;
        const key = `${e.postalCode}|${e.street}`;
        streets.set(key, [...(streets.get(key) ?? []), e]);
      }
    }
    const keys = [...streets.keys()].sort();
    for (const key of keys) {
      const entries = streets.get(key)!;
      const numbered = digits.length ? entries.filter((e) => digits.includes(e.number.toLowerCase())) : [];
      if (numbered.length) {
        out.push(...numbered.map((e) => this.addressSuggestion(e, query)));
      } else {
        const [postcode, street] = key.split('|') as [string, string];
        out.push({
          id: `${this.country}|ST|${key}`,
          type: 'Container',
          text: street,
          highlight: highlightRanges(street, query),
          description: `${postcode} ${entries[0]!.city} - ${plural(entries.length, 'address')}`,
        });
      }
    }
    return out.slice(0, FIND_LIMIT);
  }

  async retrieve(id: string): Promise<RetrievedAddress | null> {
    const e = this.byId.get(id);
    if (!e) return null;
    const country = COUNTRY[this.country];
    const line1 = line1Of(e);
    return retrievedAddress({
      id: e.id,
      company: e.name,
      subBuilding: e.unit,
      buildingNumber: e.number,
      street: e.street,
      city: e.city,
      line1,
      postalCode: e.postalCode,
      country: country.name,
      countryIso2: this.country,
      countryIso3: country.iso3,
      countryIsoNumber: country.number,
      label: [e.name, line1, `${e.postalCode} ${e.city}`, country.name.toUpperCase()].filter(Boolean).join('\n'),
      // A named OSM object at an address is a business or institution; the data says nothing
      // about unnamed ones, so their type stays empty.
      type: e.name ? 'business' : '',
    });
  }

  private open(container: string, query: string): LookupSuggestion[] {
    const [country, kind, postcode, street] = container.split('|');
    if (country !== this.country || !postcode) return [];
    const entries = this.byPostcode.get(postcode) ?? [];
    if (kind === 'PC') {
      const streets = new Map<string, number>();
      for (const e of entries) streets.set(e.street, (streets.get(e.street) ?? 0) + 1);
      return [...streets]
        .sort(([a], [b]) => a.localeCompare(b))
        .slice(0, CONTAINER_LIMIT)
        .map(([name, count]) => ({
          id: `${this.country}|ST|${postcode}|${name}`,
          type: 'Container' as const,
          text: name,
          highlight: highlightRanges(name, query),
          description: `${postcode} ${entries[0]!.city} - ${plural(count, 'address')}`,
        }));
    }
    if (kind === 'ST' && street) {
      return entries
        .filter((e) => e.street === street)
        .sort((a, b) => a.number.localeCompare(b.number, 'fi', { numeric: true }) || a.unit.localeCompare(b.unit))
        .slice(0, CONTAINER_LIMIT)
        .map((e) => this.addressSuggestion(e, query));
    }
    return [];
  }

  private addressSuggestion(e: Entry, query: string): LookupSuggestion {
    const text = line1Of(e);
    return {
      id: e.id,
      type: 'Address',
      text,
      highlight: highlightRanges(text, query),
      description: [e.name, `${e.postalCode} ${e.city}`].filter(Boolean).join(', '),
    };
  }
}

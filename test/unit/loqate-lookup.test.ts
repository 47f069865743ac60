import { createServer, type Server } from 'node:http';
import { LoqateAddressLookup } from '../../src/integrations/address-lookup/loqate';
import { RETRIEVED_FIELDS } from '../../src/integrations/address-lookup/port';

// A local fake of Loqate Capture Interactive speaking its documented json3 shapes: results or a
// single error item in `Items`, always with HTTP 200.
const requests: URL[] = [];
let server: Server;
let baseUrl: string;

const RETRIEVE_ITEM = {
  Id: 'GB|RM|A|54645018',
  DomesticId: '54645018',
  Language: 'ENG',
  LanguageAlternatives: 'ENG',
  Department: '',
  Company: 'Loqate',
  SubBuilding: '',
  BuildingNumber: '',
  BuildingName: 'Waterside',
  SecondaryStreet: '',
  Street: 'Basin Road',
  Block: '',
  Neighbourhood: '',
  District: '',
  City: 'Worcester',
  Line1: 'Waterside',
  Line2: 'Basin Road',
  Line3: '',
  Line4: '',
  Line5: '',
  AdminAreaName: 'Worcester',
  AdminAreaCode: '47UE',
  Province: 'Worcestershire',
  ProvinceName: 'Worcestershire',
  ProvinceCode: '',
  PostalCode: 'WR5 3DA',
  CountryName: 'United Kingdom',
  CountryIso2: 'GB',
  CountryIso3: 'GBR',
  CountryIsoNumber: 826,
  SortingNumber1: '94142',
  SortingNumber2: '',
  Barcode: '(WR53DA1PX)',
  POBoxNumber: '',
  Label: 'Loqate\nWaterside\nBasin Road\nWORCESTER\nWR5 3DA\nUNITED KINGDOM',
  Type: 'Commercial',
  DataLevel: 'Premise',
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://fake');
    requests.push(url);
    const key = url.searchParams.get('Key');
    let items: unknown[];
    if (key !== 'good-key')
      items = [
        {
          Error: '2',
          Description: 'Unknown key',
          Cause: 'The key you are using to access the service was not found.',
          Resolution: 'Check the key.',
        },
      ];
    else if (url.pathname === '/Capture/Interactive/Find/v1.10/json3.ws') {
      items = url.searchParams.get('Container')
        ? [
            {
              Id: 'GB|RM|A|54645018',
              Type: 'Address',
              Text: 'Loqate, Waterside, Basin Road',
              Highlight: '',
              Description: 'Worcester, WR5 3DA',
            },
          ]
        : [
            {
              Id: 'GB|RM|ENG|3DA-WR5',
              Type: 'Postcode',
              Text: 'WR5 3DA',
              Highlight: '0-3,4-7;',
              Description: 'Basin Road, Worcester - 13 Addresses',
            },
          ];
    } else if (url.searchParams.get('Id') === 'GB|RM|A|54645018') items = [RETRIEVE_ITEM, { ...RETRIEVE_ITEM, Language: 'CYM' }];
    else items = [{ Error: '1001', Description: 'Id Invalid', Cause: 'The Id parameter supplied was invalid.', Resolution: 'Try again.' }];
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ Items: items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('Loqate adapter', () => {
  it('maps Find results, keeps only the text highlight, and passes container and countries', async () => {
    const loqate = new LoqateAddressLookup({ key: 'good-key', baseUrl });
    const found = await loqate.find({ text: 'WR5 3DA', countries: ['GB'] });
    expect(found).toEqual([
      {
        id: 'GB|RM|ENG|3DA-WR5',
        type: 'Postcode',
        text: 'WR5 3DA',
        highlight: '0-3,4-7',
        description: 'Basin Road, Worcester - 13 Addresses',
      },
    ]);
    const sent = requests.at(-1)!;
    expect(sent.searchParams.get('Text')).toBe('WR5 3DA');
    expect(sent.searchParams.get('Countries')).toBe('GB');
    const inside = await loqate.find({ text: 'WR5 3DA', container: found[0]!.id });
    expect(inside[0]).toMatchObject({ type: 'Address', id: 'GB|RM|A|54645018' });
    expect(requests.at(-1)!.searchParams.get('Container')).toBe('GB|RM|ENG|3DA-WR5');
  });

  it('maps Retrieve to every field of the spec, takes the first language, and answers null for an invalid id', async () => {
    const loqate = new LoqateAddressLookup({ key: 'good-key', baseUrl });
    const address = await loqate.retrieve('GB|RM|A|54645018');
    expect(Object.keys(address!).sort()).toEqual([...RETRIEVED_FIELDS].sort());
    expect(address).toMatchObject({
      id: 'GB|RM|A|54645018',
      company: 'Loqate',
      buildingName: 'Waterside',
      street: 'Basin Road',
      city: 'Worcester',
      line1: 'Waterside',
      line2: 'Basin Road',
      adminArea: 'Worcester',
      state: 'Worcestershire',
      postalCode: 'WR5 3DA',
      country: 'United Kingdom',
      countryIso2: 'GB',
      countryIso3: 'GBR',
      countryIsoNumber: '826',
      sortingNumber1: '94142',
      barcode: '(WR53DA1PX)',
      type: 'Commercial',
      block: '',
    });
    expect(await loqate.retrieve('GB|RM|A|0')).toBeNull();
  });

  it('turns provider errors and an unreachable service into 503 domain errors', async () => {
    const badKey = new LoqateAddressLookup({ key: 'bad', baseUrl });
    const refused = await badKey.find({ text: 'x' }).catch((err: Error) => err);
    expect(refused).toMatchObject({ kind: 'unavailable', code: 'address-lookup-unavailable' });
    // The provider's words are kept for the log (the cause), never put in what the client reads.
    expect((refused as Error).message).not.toContain('Unknown key');
    expect(((refused as Error).cause as Error).message).toBe('loqate: Unknown key');
    await expect(badKey.retrieve('GB|RM|A|54645018')).rejects.toMatchObject({ kind: 'unavailable' });
    const down = new LoqateAddressLookup({ key: 'good-key', baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 });
    const unreachable = await down.find({ text: 'x' }).catch((err: Error) => err);
    expect(unreachable).toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(/^The address lookup service is unavailable/),
    });
    expect((unreachable as Error).message).not.toMatch(/ECONNREFUSED|fetch failed|127\.0\.0\.1/);
  });
});

import Koa from 'koa';
import pino from 'pino';
import request from 'supertest';
import { problemErrors } from '../../src/http/middleware/errors';
import { EasyPostCarrier } from '../../src/integrations/carriers/easypost';
import { DomainError } from '../../src/services/errors';
import { EASYPOST_TEST_KEY, PROVIDER_SECRET, startEasyPostFake, type EasyPostFake, type SeenRequest } from '../support/easypost-fake';

// The adapter against a local fake of EasyPost's Tracker API serving recorded answers
// (test/support/easypost-fake.ts, test/support/easypost/).
const GOOD_KEY = EASYPOST_TEST_KEY;
let fake: EasyPostFake;
let seen: SeenRequest[];
let baseUrl: string;
beforeAll(async () => {
  fake = await startEasyPostFake();
  ({ seen, baseUrl } = fake);
});
afterAll(() => fake.close());
beforeEach(() => {
  seen.length = 0;
});

const carrier = (apiKey = GOOD_KEY) => new EasyPostCarrier({ apiKey, baseUrl, timeoutMs: 2000 });

describe('EasyPost carrier', () => {
  it("maps each of EasyPost's statuses to ours, with the latest scan's words and place as the detail", async () => {
    const reports = Object.fromEntries(
      await Promise.all(
        ['EZ1000000001', 'EZ2000000002', 'EZ3000000003', 'EZ4000000004', 'EZ8000000008', 'EZ5000000005', 'EZ6000000006'].map(
          async (code) => [code, await carrier().track(code)] as const,
        ),
      ),
    );
    expect(reports).toEqual({
      EZ1000000001: { status: 'PRE_TRANSIT', detail: 'Pre-Shipment Info Sent to USPS' },
      EZ2000000002: { status: 'IN_TRANSIT', detail: 'Departed USPS Facility (NORTH HOUSTON, US)' },
      EZ3000000003: { status: 'OUT_FOR_DELIVERY', detail: 'Out for Delivery (CHARLESTON, US)' },
      EZ4000000004: { status: 'DELIVERED', detail: 'Delivered, In/At Mailbox (CHARLESTON, US)' },
      // At a pickup point: the last mile, and the detail says where the parcel waits.
      EZ8000000008: { status: 'OUT_FOR_DELIVERY', detail: 'Available for pickup: Available for Pickup (CHARLESTON, US)' },
      // Statuses ours has no place for keep how far the parcel got and say what happened.
      EZ5000000005: {
        status: 'OUT_FOR_DELIVERY',
        detail: 'Being returned to the sender: Return to Sender Processed (CHARLESTON, US)',
      },
      EZ6000000006: {
        status: 'IN_TRANSIT',
        detail: 'The carrier could not deliver it: Delivery Attempted - No Access to Delivery Location (CHARLESTON, US)',
      },
    });
  });

  it('asks for the tracker by code with the key as Basic user name, and creates it once when EasyPost has none', async () => {
    expect(await carrier().track('EZ2000000002')).toMatchObject({ status: 'IN_TRANSIT' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', authorization: `Basic ${Buffer.from(`${GOOD_KEY}:`).toString('base64')}` });
    expect(seen[0]!.url.pathname).toBe('/v2/trackers');
    expect(seen[0]!.url.searchParams.get('tracking_code')).toBe('EZ2000000002');

    // Unknown to EasyPost: the tracker is created (the carrier detected from the code), and the
    // number reads as unknown until EasyPost has scans for it.
    seen.length = 0;
    expect(await carrier().track('9400 1000 0000 0000 0000 00')).toBeNull();
    expect(seen.map((s) => s.method)).toEqual(['GET', 'POST']);
    expect(JSON.parse(seen[1]!.body)).toEqual({ tracker: { tracking_code: '9400 1000 0000 0000 0000 00' } });
    seen.length = 0;
    expect(await carrier().track('9400 1000 0000 0000 0000 00')).toBeNull();
    expect(seen.map((s) => s.method)).toEqual(['GET']);
    expect(await carrier().track('EZ7000000007')).toBeNull();
  });

  it('says the carrier is unavailable, in its own words only, when EasyPost refuses, fails or answers garbage', async () => {
    for (const [key, code] of [
      ['EZTK_revoked', 'EZ1000000001'],
      [GOOD_KEY, 'EZ-BOOM'],
      [GOOD_KEY, 'EZ-GARBAGE'],
    ] as const) {
      const err = await carrier(key)
        .track(code)
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(DomainError);
      expect(err).toMatchObject({ kind: 'unavailable', code: 'temporarily-unavailable' });
      const { message, cause } = err as DomainError;
      expect(message).toBe('The carrier tracking service is unavailable; tracking resumes on its own.');
      // The provider's words are kept for the log, as the cause.
      expect(String(cause)).toMatch(/easypost: [\s\S]*(APIKEY\.INACTIVE|acct_9f8e7d)/);
    }
    const unreachable = new EasyPostCarrier({ apiKey: GOOD_KEY, baseUrl: 'http://127.0.0.1:9', timeoutMs: 2000 });
    await expect(unreachable.track('EZ1000000001')).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it("puts none of the provider's text or the exception's into a 5xx body", async () => {
    // The service's own error handling in front of a handler that lets the carrier's error through.
    const app = new Koa();
    const logged: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    app.use((ctx, next) => {
      // What requestContext gives every request: a request log, here one kept in memory.
      ctx.state.log = log;
      return next();
    });
    app.use(problemErrors());
    app.use(async (ctx) => {
      ctx.body = await carrier(ctx.query.key as string).track(ctx.query.code as string);
    });
    for (const query of [{ key: 'EZTK_revoked', code: 'EZ1000000001' }, { code: 'EZ-BOOM' }, { code: 'EZ-GARBAGE' }]) {
      const res = await request(app.callback())
        .get('/track')
        .query({ key: GOOD_KEY, ...query });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ type: '/problems/temporarily-unavailable', status: 503 });
      for (const leak of [PROVIDER_SECRET, 'acct_9f8e7d', 'APIKEY', 'api key', 'easypost', 'JSON', 'Unexpected', 'HTTP 5', '<html>']) {
        expect([query, leak, res.text.includes(leak)]).toEqual([query, leak, false]);
      }
    }
    // The operator's log has the provider's words, with the request.
    expect(logged).toEqual([
      expect.stringContaining('APIKEY.INACTIVE'),
      expect.stringContaining(PROVIDER_SECRET),
      expect.stringContaining(PROVIDER_SECRET),
    ]);
  });
});

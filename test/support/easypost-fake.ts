import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const FIXTURES = path.join(__dirname, 'easypost');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

export const EASYPOST_TEST_KEY = 'EZTK_test_key_1234';
/** What a provider must never pass on: its account, its key, its internals. */
export const PROVIDER_SECRET = 'acct_9f8e7d internal stack at tracker-service-7:4411';

export interface SeenRequest {
  method: string;
  url: URL;
  authorization?: string;
  body: string;
}

export interface EasyPostFake {
  baseUrl: string;
  /** Every request, oldest first; tests may empty it. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A local stand-in for EasyPost's Tracker API answering with the recorded trackers of
 * test/support/easypost (shaped as EasyPost documents them), keyed by tracking code:
 * `GET /v2/trackers?tracking_code=…` lists the code's tracker, `POST /v2/trackers` creates one
 * (`unknown` for a code with no recording). Any key but EASYPOST_TEST_KEY is refused with
 * EasyPost's error object; `EZ-BOOM` answers a 500 HTML page and `EZ-GARBAGE` broken JSON, both
 * holding PROVIDER_SECRET.
 */
export async function startEasyPostFake(): Promise<EasyPostFake> {
  const trackers = new Map<string, string>(
    readdirSync(FIXTURES)
      .filter((f) => f.startsWith('tracker-'))
      .map((f) => [JSON.parse(fixture(f)).tracking_code as string, fixture(f)]),
  );
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://fake');
      seen.push({ method: req.method!, url, authorization: req.headers.authorization, body });
      const answer = (status: number, text: string, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(text);
      };
      if (req.headers.authorization !== `Basic ${Buffer.from(`${EASYPOST_TEST_KEY}:`).toString('base64')}`) {
        return answer(401, fixture('error-apikey-inactive.json'));
      }
      const code = req.method === 'POST' ? JSON.parse(body).tracker.tracking_code : url.searchParams.get('tracking_code')!;
      if (code === 'EZ-BOOM') return answer(500, `<html><body>Internal error: ${PROVIDER_SECRET}</body></html>`, 'text/html');
      if (code === 'EZ-GARBAGE') return answer(200, `{"trackers": [ ${PROVIDER_SECRET}`);
      if (req.method === 'POST') {
        // A new tracker of a code EasyPost has no scans for yet is `unknown`; it is listed from then on.
        if (!trackers.has(code)) trackers.set(code, JSON.stringify({ ...JSON.parse(trackers.get('EZ7000000007')!), tracking_code: code }));
        return answer(201, trackers.get(code)!);
      }
      return answer(200, `{"trackers": [${trackers.get(code) ?? ''}], "has_more": false}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

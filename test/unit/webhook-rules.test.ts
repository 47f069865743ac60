import { Webhook } from 'standardwebhooks';
import { parseRetryAfter } from '../../src/services/webhooks/http-post';
import { normaliseHeaders } from '../../src/services/webhooks/rules';
import { decryptSecret, encryptSecret, newSigningSecret, signatureHeader } from '../../src/services/webhooks/signing';
import { endpointUrlProblem, isPublicAddress } from '../../src/services/webhooks/url-policy';

describe('webhook signing', () => {
  it('produces signatures the standardwebhooks verifier accepts, and only for the signed body', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ type: 'TEST_WEBHOOK', data: { sellerId: 's', createdAt: '2026-11-25T00:00:00.000Z' } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt-1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signatureHeader(secret, 'evt-1', ts, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('s"', 'x"'), headers)).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  it('encrypts secrets with authentication: the wrong key or a tampered value fails', () => {
    const key = Buffer.alloc(32, 1);
    const secret = newSigningSecret();
    const stored = encryptSecret(key, secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(encryptSecret(key, secret)).not.toBe(stored);
    expect(decryptSecret(key, stored)).toBe(secret);
    expect(() => decryptSecret(Buffer.alloc(32, 2), stored)).toThrow();
    const parts = stored.split('.');
    parts[3] = Buffer.from('x'.repeat(30)).toString('base64url');
    expect(() => decryptSecret(key, parts.join('.'))).toThrow();
  });
});

describe('endpoint URL policy (SSRF)', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.0.0.8', false],
    ['172.16.3.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:10.0.0.1', false],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
  ])('%s public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('allows only public https URLs when private targets are not allowed', () => {
    expect(endpointUrlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(endpointUrlProblem('http://hooks.example.com/x', false)).toBe('must use https');
    expect(endpointUrlProblem('https://127.0.0.1/x', false)).toMatch(/loopback/);
    expect(endpointUrlProblem('https://[::1]/x', false)).toMatch(/loopback/);
    expect(endpointUrlProblem('https://localhost/x', false)).toMatch(/public host/);
    expect(endpointUrlProblem('https://metadata.internal/x', false)).toMatch(/public host/);
    expect(endpointUrlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/credentials/);
    expect(endpointUrlProblem('not a url', false)).toMatch(/absolute/);
    expect(endpointUrlProblem(`https://example.com/${'a'.repeat(2100)}`, false)).toMatch(/2048/);
  });

  it('allows http and loopback in development mode', () => {
    expect(endpointUrlProblem('http://127.0.0.1:4000/hook', true)).toBeNull();
    expect(endpointUrlProblem('ftp://127.0.0.1/hook', true)).toBe('must use https or http');
  });
});

describe('custom headers', () => {
  it('lower-cases names and refuses reserved names, duplicates and control characters', () => {
    expect(normaliseHeaders({ 'X-Api-Key': 'k' })).toEqual({ headers: { 'x-api-key': 'k' }, errors: [] });
    const { errors } = normaliseHeaders({
      'webhook-id': 'x',
      Host: 'evil',
      'X-A': 'a',
      'x-a': 'b',
      'X-B': 'line\nbreak',
    });
    expect(errors.map((e) => e.field)).toEqual(['headers.webhook-id', 'headers.Host', 'headers.x-a', 'headers.X-B']);
  });

  it('takes values of visible ASCII and Latin-1 only: nothing above U+00FF, no C0 or C1 controls', () => {
    expect(normaliseHeaders({ 'X-Ok': 'caf\u00e9 \tbar' }).errors).toEqual([]);
    const { errors } = normaliseHeaders({ 'X-Euro': '\u20ac', 'X-Cr': 'a\rb', 'X-C1': '\u0085' });
    expect(errors.map((e) => e.field)).toEqual(['headers.X-Euro', 'headers.X-Cr', 'headers.X-C1']);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

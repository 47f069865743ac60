import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (SSRF protection). Outside development only `https` URLs whose
 * host resolves to public unicast addresses are allowed; loopback, private, link-local,
 * unique-local, multicast, reserved and similar ranges are refused. The rule is applied when
 * an endpoint is saved (scheme, literal addresses, local names) and again at every delivery,
 * after DNS resolution, on the very address the connection then uses (so DNS rebinding cannot
 * slip past it).
 */
export const MAX_URL_LENGTH = 2048;

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // ipaddr.process turns IPv4-mapped IPv6 (::ffff:10.0.0.1) into the IPv4 it hides.
  return ipaddr.process(address).range() === 'unicast';
}

const LOCAL_NAME = /(^|\.)(localhost|local|internal|localdomain)$/i;

/** Why a URL cannot be an endpoint, or null when it can. */
export function endpointUrlProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return allowPrivate ? 'must use https or http' : 'must use https';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not contain a fragment';
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (net.isIP(host)) return isPublicAddress(host) ? null : 'must not point at a loopback, private or reserved address';
  if (LOCAL_NAME.test(host) || !host.includes('.')) return 'must be a public host name';
  return null;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * A `lookup` for http.request that resolves the name and refuses the connection when any
 * answer is not public, so the socket connects only to an address that passed the check.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused || addresses.length === 0) {
        const error = Object.assign(new Error(`${hostname} resolves to a non-public address (${refused?.address ?? 'none'})`), {
          code: 'EADDRNOTPUBLIC',
        });
        return callback(error, '', 0);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

import { lookup as dnsLookup, promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard of merchant notifications. A target must be http(s) and must not reach loopback,
 * private, link-local, unique-local, carrier-grade NAT, multicast, unspecified or cloud-metadata
 * addresses unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true. A URL's name is resolved when it is registered
 * (registrationProblem), and the address actually connected to is checked again at delivery
 * (guardedLookup), so a name that resolves to a public address at registration and a private one later
 * (DNS rebinding) is refused.
 * Odd spellings (0x7f.1, 017700000001, 2130706433, [::ffff:127.0.0.1]) are normalised by the WHATWG URL
 * parser to the address they mean before any check.
 */
const ALLOWED_RANGES = new Set(['unicast']);

export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  // IPv4-mapped and IPv4-compatible IPv6 addresses are judged as the IPv4 address they carry.
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).range() === 'rfc6052') return true; // NAT64 of anything
  return !ALLOWED_RANGES.has(parsed.range());
}

export type TargetProblem = 'scheme' | 'address' | 'url';

/** Why this URL may not be a notification target, judging an IP literal by itself and a name not yet (see guardedLookup). */
export function targetProblem(url: string, allowPrivate: boolean): TargetProblem | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'scheme';
  if (parsed.username || parsed.password) return 'url';
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isForbiddenAddress(host) ? 'address' : undefined;
  // RFC 6761: localhost names are loopback whatever a resolver says (and "localhost." may not resolve here).
  return /(^|\.)localhost\.?$/i.test(host) ? 'address' : undefined;
}

/** targetProblem, and also the name's current addresses (a name that does not resolve yet is accepted). */
export async function registrationProblem(url: string, allowPrivate: boolean): Promise<TargetProblem | undefined> {
  const problem = targetProblem(url, allowPrivate);
  if (problem || allowPrivate) return problem;
  const host = new URL(url).hostname;
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return undefined;
  const addresses = await dns.lookup(host, { all: true }).catch(() => []);
  return addresses.some((a) => isForbiddenAddress(a.address)) ? 'address' : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the HTTP client that fails when any resolved address is forbidden. */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => isForbiddenAddress(a.address));
    if (refused) {
      const problem = Object.assign(new Error(`${hostname} resolves to a forbidden address ${refused.address}`), {
        code: 'WEBHOOK_TARGET_FORBIDDEN',
      });
      return callback(problem, []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

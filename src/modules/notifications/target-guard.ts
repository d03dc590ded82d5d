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
/**
 * Every address class a notification may not reach: the one list the guard checks and the tests
 * enumerate (IANA's special-purpose registries, plus cloud metadata endpoints outside them). An
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it carries; an
 * IPv4-compatible one (::a.b.c.d, deprecated) is refused outright, whatever it carries.
 */
export const FORBIDDEN_RANGES: ReadonlyArray<{ cidr: string; what: string }> = [
  { cidr: '0.0.0.0/8', what: '"this network", unspecified' },
  { cidr: '10.0.0.0/8', what: 'private' },
  { cidr: '100.64.0.0/10', what: 'carrier-grade NAT (Alibaba Cloud metadata at 100.100.100.200)' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '169.254.0.0/16', what: 'link-local (AWS, GCP and Azure metadata at 169.254.169.254)' },
  { cidr: '172.16.0.0/12', what: 'private' },
  { cidr: '192.0.0.0/24', what: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', what: 'documentation (TEST-NET-1)' },
  { cidr: '192.31.196.0/24', what: 'AS112' },
  { cidr: '192.52.193.0/24', what: 'AMT' },
  { cidr: '192.88.99.0/24', what: '6to4 relay anycast' },
  { cidr: '192.168.0.0/16', what: 'private' },
  { cidr: '192.175.48.0/24', what: 'AS112' },
  { cidr: '198.18.0.0/15', what: 'benchmarking' },
  { cidr: '198.51.100.0/24', what: 'documentation (TEST-NET-2)' },
  { cidr: '203.0.113.0/24', what: 'documentation (TEST-NET-3)' },
  { cidr: '224.0.0.0/4', what: 'multicast' },
  { cidr: '240.0.0.0/4', what: 'reserved, and the broadcast address' },
  { cidr: '168.63.129.16/32', what: 'Azure platform endpoint (wireserver)' },
  { cidr: '::/96', what: 'IPv4-compatible (deprecated), unspecified and loopback' },
  { cidr: '::ffff:0:0:0/96', what: 'IPv4-translated' },
  { cidr: '64:ff9b::/96', what: 'NAT64 (reaches any IPv4 address)' },
  { cidr: '64:ff9b:1::/48', what: 'local-use NAT64' },
  { cidr: '100::/64', what: 'discard-only' },
  { cidr: '2001::/23', what: 'IETF protocol assignments (Teredo, benchmarking, ORCHID)' },
  { cidr: '2001:db8::/32', what: 'documentation' },
  { cidr: '2002::/16', what: '6to4 (carries an IPv4 address)' },
  { cidr: '2620:4f:8000::/48', what: 'AS112' },
  { cidr: '3fff::/20', what: 'documentation' },
  { cidr: 'fc00::/7', what: 'unique local (AWS metadata at fd00:ec2::254)' },
  { cidr: 'fe80::/10', what: 'link-local' },
  { cidr: 'fec0::/10', what: 'site-local (deprecated)' },
  { cidr: 'ff00::/8', what: 'multicast' },
];

const forbiddenNetworks = FORBIDDEN_RANGES.map(({ cidr }) => ipaddr.parseCIDR(cidr));

export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return forbiddenNetworks.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
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

import ipaddr from 'ipaddr.js';

/**
 * A client's address as the sign-in limits count it: an IPv4 address (an IPv4-mapped IPv6 one as the
 * IPv4 it is), or an IPv6 client's /64, which one home or host holds whole: counting single IPv6
 * addresses would give a guesser 2^64 of them.
 */
export function signInAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...prefix, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}

import ipaddr from 'ipaddr.js';
import { embeddedIPv4, NAT64_LOCAL_USE } from './embedded-ipv4';

// Which destinations outbound requests made by nodes may reach (docs/api.md#outbound-requests):
// never loopback, private, link-local, carrier-grade NAT, multicast, reserved or
// cloud-metadata addresses, unless the destination is on the allow list
// (OUTBOUND_ALLOWED_HOSTS: host names, IP addresses or CIDR ranges). An IPv6
// address that carries an IPv4 address is judged as that IPv4 address.

/** ipaddr.js range names that are public, routable unicast. */
const PUBLIC_RANGES = new Set(['unicast']);

/** Metadata endpoints outside the private ranges (AWS IPv6, Alibaba). */
const METADATA = ['fd00:ec2::254', '100.100.100.200'].map((m) => ipaddr.parse(m).toString());

/** ipaddr.js names of the IPv6 ranges whose addresses are judged only by the IPv4 address they carry. */
const TUNNEL_RANGES = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AllowList {
  hosts: Set<string>;
  ranges: [Address, number][];
}

export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges: AllowList['ranges'] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes('/') && isCidr(entry)) ranges.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) ranges.push([normalise(entry), normalise(entry).kind() === 'ipv4' ? 32 : 128]);
    else hosts.add(entry);
  }
  return { hosts, ranges };
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** An allow-list entry written as an IPv4-mapped IPv6 address (::ffff:10.0.0.1) lists that IPv4 address. */
function normalise(address: string): Address {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

export function hostAllowed(list: AllowList, host: string): boolean {
  return list.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ''));
}

function listed(list: AllowList, ip: Address): boolean {
  return list.ranges.some(([base, bits]) => base.kind() === ip.kind() && ip.match([base, bits] as never));
}

/** Why `ip` may not be reached, judged by its own kind's ranges; undefined when it may. */
function refusedByRange(list: AllowList, ip: Address): string | undefined {
  if (listed(list, ip)) return undefined;
  if (METADATA.includes(ip.toString())) return 'a cloud metadata address';
  const range = ip.range();
  return PUBLIC_RANGES.has(range) ? undefined : `a ${range} address`;
}

/** Undefined when `address` may be reached; otherwise why not. */
export function refusedAddress(list: AllowList, address: string): string | undefined {
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4' || listed(list, ip)) return refusedByRange(list, ip);
  const ipv6 = ip as ipaddr.IPv6;
  if (ipv6.match(NAT64_LOCAL_USE)) {
    return 'a local-use NAT64 address (64:ff9b:1::/48), whose IPv4 destination its translator decides';
  }
  // The ranges of the tunnelling forms say nothing of where a packet ends up; any
  // other IPv6 range (an ISATAP address's prefix) is judged as well as what it carries.
  if (!TUNNEL_RANGES.has(ipv6.range())) {
    const why = refusedByRange(list, ipv6);
    if (why) return why;
  }
  for (const { address: ipv4, form } of embeddedIPv4(ipv6)) {
    const why = refusedByRange(list, ipv4);
    if (why) return `${why} (${ipv4.toString()}, carried by this ${form} address)`;
  }
  return undefined;
}

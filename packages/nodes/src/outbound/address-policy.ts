import ipaddr from 'ipaddr.js';

// Which destinations outbound requests made by nodes may reach (extensions.md 5):
// never loopback, private, link-local, carrier-grade NAT, multicast, reserved or
// cloud-metadata addresses, unless the destination is on the allow list
// (OUTBOUND_ALLOWED_HOSTS: host names, IP addresses or CIDR ranges).

/** ipaddr.js range names that are public, routable unicast. */
const PUBLIC_RANGES = new Set(['unicast']);

/** Metadata endpoints outside the private ranges (AWS IPv6, Alibaba). */
const METADATA = ['fd00:ec2::254', '100.100.100.200'];

export interface AllowList {
  hosts: Set<string>;
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
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

/** IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are judged as the IPv4 address they carry. */
function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

export function hostAllowed(list: AllowList, host: string): boolean {
  return list.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ''));
}

/** Undefined when `address` may be reached; otherwise why not. */
export function refusedAddress(list: AllowList, address: string): string | undefined {
  const ip = normalise(address);
  for (const [base, bits] of list.ranges) {
    if (base.kind() === ip.kind() && ip.match([base, bits] as never)) return undefined;
  }
  if (METADATA.some((m) => ipaddr.parse(m).toString() === ip.toString())) return 'a cloud metadata address';
  const range = ip.range();
  if (PUBLIC_RANGES.has(range)) return undefined;
  return `a ${range} address`;
}

import ipaddr from 'ipaddr.js';

// IPv6 addresses that carry an IPv4 address: a packet sent to one reaches that
// IPv4 address, through the kernel (mapped, compatible), a NAT64 gateway or a
// tunnel relay (6to4, Teredo, ISATAP). The outbound rules judge them by it.

export interface EmbeddedIPv4 {
  address: ipaddr.IPv4;
  /** The IPv6 form that carries it, as the refusal names it. */
  form: string;
}

const prefix = (cidr: string) => ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number];

const IPV4_MAPPED = prefix('::ffff:0:0/96');
const IPV4_TRANSLATED = prefix('::ffff:0:0:0/96');
const IPV4_COMPATIBLE = prefix('::/96');
const NAT64_WELL_KNOWN = prefix('64:ff9b::/96');
const SIX_TO_FOUR = prefix('2002::/16');
const TEREDO = prefix('2001::/32');

/**
 * The local-use NAT64 prefix (RFC 8215): its operator chooses how long the
 * translator's prefix is, so where the IPv4 address sits, and which it is,
 * cannot be read from the address alone.
 */
export const NAT64_LOCAL_USE = prefix('64:ff9b:1::/48');

function ipv4At(bytes: number[], offsets: number[], xor = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(offsets.map((i) => bytes[i]! ^ xor));
}

const LAST_32_BITS = [12, 13, 14, 15];

/** The IPv4 addresses `ip` carries; empty for an IPv6 address that carries none. */
export function embeddedIPv4(ip: ipaddr.IPv6): EmbeddedIPv4[] {
  const bytes = ip.toByteArray();
  const at = (form: string, offsets: number[], xor = 0) => ({ address: ipv4At(bytes, offsets, xor), form });
  if (ip.match(IPV4_MAPPED)) return [at('IPv4-mapped', LAST_32_BITS)];
  if (ip.match(IPV4_TRANSLATED)) return [at('IPv4-translated', LAST_32_BITS)];
  // :: and ::1 are themselves (unspecified, loopback); the rest of ::/96 is deprecated IPv4-compatible.
  if (ip.match(IPV4_COMPATIBLE)) return ip.range() === 'unicast' ? [at('IPv4-compatible', LAST_32_BITS)] : [];
  if (ip.match(NAT64_WELL_KNOWN)) return [at('NAT64', LAST_32_BITS)];
  // 2002:AABB:CCDD::/48 routes to the 6to4 relay at AA.BB.CC.DD.
  if (ip.match(SIX_TO_FOUR)) return [at('6to4', [2, 3, 4, 5])];
  // 2001:0:SERVER:flags:port:CLIENT, the client's address with every bit inverted.
  if (ip.match(TEREDO)) {
    return [at('Teredo server', [4, 5, 6, 7]), at('Teredo client', LAST_32_BITS, 0xff)];
  }
  // ISATAP interface identifiers (RFC 5214): 0000:5efe or 0200:5efe, then the IPv4 address.
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) {
    return [at('ISATAP', LAST_32_BITS)];
  }
  return [];
}

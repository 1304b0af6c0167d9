import { parseAllowList, refusedAddress } from './address-policy';

describe('refusedAddress', () => {
  const none = parseAllowList([]);
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.9', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedAddress(none, address)).toContain(range);
  });

  it('refuses metadata addresses outside the private ranges', () => {
    expect(refusedAddress(none, 'fd00:ec2::254')).toBeDefined();
    expect(refusedAddress(none, '100.100.100.200')).toMatch(/metadata/);
  });

  it('allows public addresses', () => {
    expect(refusedAddress(none, '93.184.216.34')).toBeUndefined();
    expect(refusedAddress(none, '2606:2800:220:1:248:1893:25c8:1946')).toBeUndefined();
  });

  // Each IPv6 form that carries an IPv4 address reaches that address (through the
  // kernel, a NAT64 gateway or a tunnel relay), so it is judged as that address.
  it.each([
    ['::127.0.0.1', 'loopback', 'IPv4-compatible'],
    ['::7f00:1', 'loopback', 'IPv4-compatible, in hex'],
    ['::a00:1', 'private', 'IPv4-compatible, in hex'],
    ['::ffff:7f00:1', 'loopback', 'IPv4-mapped, in hex'],
    ['::ffff:0:127.0.0.1', 'loopback', 'IPv4-translated (SIIT)'],
    ['64:ff9b::127.0.0.1', 'loopback', 'NAT64 well-known prefix'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal', 'NAT64 well-known prefix'],
    ['2002:7f00:1::', 'loopback', '6to4'],
    ['2002:c0a8:101:1::1', 'private', '6to4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'Teredo client (obfuscated)'],
    ['2001:0:a00:1:8000:63bf:a247:27dd', 'private', 'Teredo server'],
    ['2606:2800:220:1:0:5efe:7f00:1', 'loopback', 'ISATAP'],
    ['2606:2800:220:1:200:5efe:a00:1', 'private', 'ISATAP'],
  ])('refuses %s (%s, %s) as the IPv4 address it embeds', (address, range) => {
    expect(refusedAddress(none, address)).toContain(range);
  });

  it('refuses the local-use NAT64 prefix, whose embedded address depends on its translator', () => {
    expect(refusedAddress(none, '64:ff9b:1::5db8:d822')).toMatch(/local-use NAT64/);
    expect(refusedAddress(none, '64:ff9b:1:5db8:d8:2200::')).toMatch(/local-use NAT64/);
    expect(refusedAddress(parseAllowList(['64:ff9b:1::/48']), '64:ff9b:1::a00:1')).toBeUndefined();
  });

  it('refuses an ISATAP address whose own IPv6 range is refused, whatever IPv4 address it carries', () => {
    expect(refusedAddress(none, 'fe80::5efe:808:808')).toContain('linkLocal');
    expect(refusedAddress(none, 'fd00::200:5efe:808:808')).toContain('uniqueLocal');
    expect(refusedAddress(none, '2606:2800:220:1:0:5efe:808:808')).toBeUndefined();
  });

  it('names the embedded IPv4 address in the reason', () => {
    expect(refusedAddress(none, '::7f00:1')).toMatch(/127\.0\.0\.1/);
    expect(refusedAddress(none, '64:ff9b::a9fe:a9fe')).toMatch(/169\.254\.169\.254/);
  });

  it('allows IPv6 forms that embed public IPv4 addresses', () => {
    expect(refusedAddress(none, '64:ff9b::93.184.216.34')).toBeUndefined();
    expect(refusedAddress(none, '2002:5db8:d822::1')).toBeUndefined();
    expect(refusedAddress(none, '2001:0:4136:e378:8000:63bf:a247:27dd')).toBeUndefined();
  });

  it('refuses an embedded metadata address', () => {
    expect(refusedAddress(none, '64:ff9b::100.100.100.200')).toMatch(/metadata/);
  });

  it('allows what OUTBOUND_ALLOWED_HOSTS lists: addresses and CIDR ranges', () => {
    const list = parseAllowList(['127.0.0.1', '10.0.0.0/8', ' provider.internal ']);
    expect(refusedAddress(list, '127.0.0.1')).toBeUndefined();
    expect(refusedAddress(list, '10.9.9.9')).toBeUndefined();
    expect(refusedAddress(list, '192.168.0.1')).toBeDefined();
    expect(list.hosts.has('provider.internal')).toBe(true);
  });

  it('allows an embedded IPv4 address OUTBOUND_ALLOWED_HOSTS lists, and an IPv6 range it lists', () => {
    expect(refusedAddress(parseAllowList(['127.0.0.1']), '::7f00:1')).toBeUndefined();
    expect(refusedAddress(parseAllowList(['10.0.0.0/8']), '64:ff9b::a00:1')).toBeUndefined();
    expect(refusedAddress(parseAllowList(['64:ff9b::/96']), '64:ff9b::a00:1')).toBeUndefined();
  });
});

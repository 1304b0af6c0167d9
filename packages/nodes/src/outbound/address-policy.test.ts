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

  it('allows what OUTBOUND_ALLOWED_HOSTS lists: addresses and CIDR ranges', () => {
    const list = parseAllowList(['127.0.0.1', '10.0.0.0/8', ' provider.internal ']);
    expect(refusedAddress(list, '127.0.0.1')).toBeUndefined();
    expect(refusedAddress(list, '10.9.9.9')).toBeUndefined();
    expect(refusedAddress(list, '192.168.0.1')).toBeDefined();
    expect(list.hosts.has('provider.internal')).toBe(true);
  });
});

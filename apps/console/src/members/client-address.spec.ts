import { clientKey } from './client-address';

describe('the client a sign-in is counted by', () => {
  it('is the whole address for IPv4, and for an IPv4-mapped IPv6 address', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('is the /64 for IPv6: every address of one network counts as one client', () => {
    const network = '2001:db8:85a3:42::/64';
    for (const address of [
      '2001:db8:85a3:42::1',
      '2001:db8:85a3:42:ffff:ffff:ffff:ffff',
      '2001:0db8:85a3:0042:1:2:3:4',
      '2001:db8:85a3:42::9%eth0',
    ])
      expect(clientKey(address)).toBe(network);
    expect(clientKey('2001:db8:85a3:43::1')).toBe('2001:db8:85a3:43::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1:2.3.4.5')).toBe('fe80:0:0:0::/64');
  });
});

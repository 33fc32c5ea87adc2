import { clientOf } from './client-address';

describe('clientOf: what per-client limits count by', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:DB8:0:0:8:8:8:8', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b:1:2::198.51.100.1', '64:ff9b:1:2::/64'],
    ['unknown', 'unknown'],
  ])('%s → %s', (address, client) => {
    expect(clientOf(address)).toBe(client);
  });

  it('gives every address of one IPv6 /64 the same count, and other /64s their own', () => {
    expect(clientOf('2001:db8:aa:bb::1')).toBe(clientOf('2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
    expect(clientOf('2001:db8:aa:bb::1')).not.toBe(clientOf('2001:db8:aa:bc::1'));
  });
});

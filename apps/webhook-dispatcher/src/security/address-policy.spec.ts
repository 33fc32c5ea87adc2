import { AddressPolicy, addressRange, isPublicAddress } from './address-policy';

describe('receiver address policy', () => {
  it.each([
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    // IPv6
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'teredo'],
    ['::7f00:1', 'reserved'],
    ['fec0::1', 'deprecatedSiteLocal'],
    // IPv4-mapped IPv6 forms
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:172.16.0.1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:100.64.0.1', 'carrierGradeNat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['::ffff:255.255.255.255', 'broadcast'],
    ['::ffff:240.0.0.1', 'reserved'],
    ['not-an-address', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:93.184.215.14'])(
    'allows the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  describe('at registration', () => {
    const strict = new AddressPolicy({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: false });

    it.each([
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://10.0.0.1:8443/x',
      'https://169.254.169.254/latest',
      'https://0x7f.1/x',
      'https://2130706433/x',
    ])('refuses the literal address in %s', async (url) => {
      expect(await strict.registrationProblem(new URL(url))).toMatch(/receivers must be on the public internet/);
    });

    it('refuses a name that resolves to a refused address', async () => {
      expect(await strict.registrationProblem(new URL('https://localhost:8443/x'))).toMatch(
        /^url localhost \((127\.0\.0\.1|::1)\) is not a public address \(loopback\)/,
      );
    });

    it('refuses a name that does not resolve', async () => {
      expect(await strict.registrationProblem(new URL('https://nothing.invalid/x'))).toBe('url host nothing.invalid does not resolve');
    });

    it('accepts a public literal address', async () => {
      expect(await strict.registrationProblem(new URL('https://93.184.215.14/hooks'))).toBeUndefined();
    });

    it('accepts anything when private networks are allowed', async () => {
      expect(
        await new AddressPolicy({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }).registrationProblem(new URL('https://127.0.0.1/x')),
      ).toBeUndefined();
    });
  });
});

import { describe, expect, it } from 'vitest';
import { addressKey, customerIpKey } from './address-key.js';

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002::ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    // IPv6 forms carrying an IPv4 address count as that address.
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['::ffff:0:203.0.113.7', '203.0.113.7'],
    ['64:ff9b::203.0.113.7', '203.0.113.7'],
    ['::203.0.113.7', '203.0.113.7'],
  ])('keys %j as %j', (value, key) => {
    expect(addressKey(value)).toBe(key);
  });

  it('puts every address of one /64 under one key, and different embedded IPv4s apart', () => {
    expect(addressKey('2001:db8:a:b:1::')).toBe(addressKey('2001:db8:a:b:ffff:1:2:3'));
    expect(addressKey('2001:db8:a:b::')).not.toBe(addressKey('2001:db8:a:c::'));
    expect(addressKey('::ffff:102:304')).not.toBe(addressKey('::ffff:506:708'));
    expect(addressKey('64:ff9b::1.2.3.4')).not.toBe(addressKey('64:ff9b::5.6.7.8'));
  });

  it.each([undefined, '', 'localhost', '1.2.3', '999.1.1.1', '1.2.3.4, 5.6.7.8', ['1.2.3.4']])(
    'ignores the X-Customer-IP %j',
    (header) => {
      expect(customerIpKey(header)).toBeUndefined();
    },
  );
});

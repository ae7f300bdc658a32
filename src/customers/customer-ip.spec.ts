import { describe, expect, it } from 'vitest';
import { customerIpKey } from './customer-ip.js';

describe('customerIpKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002::ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
  ])('keys %j as %j', (header, key) => {
    expect(customerIpKey(header)).toBe(key);
  });

  it('puts every address of one /64 under one key', () => {
    expect(customerIpKey('2001:db8:a:b:1::')).toBe(customerIpKey('2001:db8:a:b:ffff:1:2:3'));
    expect(customerIpKey('2001:db8:a:b::')).not.toBe(customerIpKey('2001:db8:a:c::'));
  });

  it.each([undefined, '', 'localhost', '1.2.3', '999.1.1.1', '1.2.3.4, 5.6.7.8', ['1.2.3.4']])(
    'ignores %j',
    (header) => {
      expect(customerIpKey(header)).toBeUndefined();
    },
  );
});

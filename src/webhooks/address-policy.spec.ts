import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './address-policy.js';

describe('webhook address policy (pure: nothing here ever connects)', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254', // AWS, GCP, Azure metadata
    '169.254.170.2', // ECS task metadata
    '100.100.100.200', // Alibaba metadata (carrier-grade NAT range)
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.10', // documentation
    '198.18.0.1', // benchmarking
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254', // AWS IPv6 metadata
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
    '2002:a00:1::', // 6to4 of 10.0.0.1
    '2001:db8::1', // documentation
    '::7f00:1', // IPv4-compatible 127.0.0.1
    '::a00:1', // IPv4-compatible 10.0.0.1
    'ff02::1',
    'localhost',
    'not-an-address',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

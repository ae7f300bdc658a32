import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  checkTargetResolves,
  checkTargetUrl,
  flagsThatAllow,
  guardedLookup,
  RefusedTarget,
} from './webhook-target.js';

const strict = { allowHttp: false, allowPrivateNetworks: false };
const open = { allowHttp: true, allowPrivateNetworks: true };

/** A resolver that answers from a table: no DNS query, no connection. */
const fakeDns =
  (table: Record<string, string[]>) =>
  (hostname: string, callback: (e: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) =>
    callback(
      null,
      (table[hostname] ?? []).map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      })),
    );

describe('webhook targets (refused before any connection)', () => {
  it.each([
    ['http://hooks.example.com/x', 'must use https'],
    ['ftp://hooks.example.com/x', 'must use https'],
    ['https://user:pass@hooks.example.com/x', 'must not carry credentials'],
    ['https://10.0.0.1/x', 'not a public address'],
    ['https://169.254.169.254/latest/meta-data', 'not a public address'],
    ['https://[::1]/x', 'not a public address'],
    ['https://[::ffff:127.0.0.1]/x', 'not a public address'],
    ['https://127.1/x', 'not a public address'],
    ['https://0x7f000001/x', 'not a public address'],
    ['not a url', 'must be an absolute URL'],
  ])('%s → %s', (url, reason) => {
    expect(() => checkTargetUrl(url, strict)).toThrow(reason);
  });

  it('accepts public https, and http or private addresses only when configured', () => {
    expect(checkTargetUrl('https://hooks.example.com/x?a=1', strict).hostname).toBe(
      'hooks.example.com',
    );
    expect(checkTargetUrl('https://93.184.215.14/x', strict).hostname).toBe('93.184.215.14');
    expect(checkTargetUrl('http://127.0.0.1:8080/x', open).port).toBe('8080');
  });

  it('names every flag that alone would accept a refused URL, and none when no flag would', async () => {
    const dns = fakeDns({ 'hooks.example': ['93.184.215.14'], localhost: ['127.0.0.1', '::1'] });
    const flags = (url: string) => flagsThatAllow(url, strict, dns);
    expect(await flags('https://hooks.example/x')).toEqual([]);
    expect(await flags('http://hooks.example/x')).toEqual(['allowHttp']);
    expect(await flags('https://10.0.0.1/x')).toEqual(['allowPrivateNetworks']);
    expect(await flags('http://127.0.0.1:8080/x')).toEqual(['allowHttp', 'allowPrivateNetworks']);
    expect(await flags('http://localhost:8080/x')).toEqual(['allowHttp', 'allowPrivateNetworks']);
    expect(await flags('ftp://hooks.example/x')).toEqual([]);
    expect(await flags('http://user:pass@127.0.0.1/x')).toEqual([]);
  });

  it('a hostname is refused when any of its addresses is private (rebinding-safe lookup)', async () => {
    const dns = fakeDns({
      'mixed.example': ['93.184.215.14', '10.1.1.1'],
      'public.example': ['93.184.215.14', '2606:4700:4700::1111'],
      'metadata.example': ['169.254.169.254'],
    });
    const refusal = (host: string) =>
      checkTargetResolves(new URL(`https://${host}/`), strict, dns).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(await refusal('public.example')).toBeUndefined();
    expect(await refusal('mixed.example')).toBeInstanceOf(RefusedTarget);
    expect(await refusal('metadata.example')).toBeInstanceOf(RefusedTarget);
    // Not resolvable now: accepted here, resolved again (and guarded) at every delivery.
    expect(await refusal('nowhere.example')).toBeUndefined();

    const answers: unknown[] = [];
    guardedLookup(strict, dns)('metadata.example', { all: true }, (error, address) =>
      answers.push(error?.message, address),
    );
    guardedLookup(strict, dns)('public.example', {}, (error, address, family) =>
      answers.push(error, address, family),
    );
    expect(answers).toEqual([
      'metadata.example resolves to 169.254.169.254, not a public address',
      [],
      null,
      '93.184.215.14',
      4,
    ]);
  });
});

import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signatureHeader } from './webhook-signature.js';

describe('webhook signatures (Standard Webhooks)', () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'order.created', data: { object: { id: 1 } } });
  const headersFor = (signature: string, timestamp: number) => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });
  const now = () => Math.floor(Date.now() / 1000);

  it('secrets are whsec_ + base64 of 32 random bytes, each different', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });

  it('the reference verifier accepts the signature, and rejects a changed body or another secret', () => {
    const secret = newSigningSecret();
    const timestamp = now();
    const headers = headersFor(signatureHeader([secret], 'evt_1', timestamp, body), timestamp);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('1', '2'), headers)).toThrow(
      'No matching signature found',
    );
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow(
      'No matching signature found',
    );
  });

  it('during a rotation both secrets sign: a receiver holding either one accepts', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const timestamp = now();
    const signature = signatureHeader([current, previous], 'evt_1', timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, headersFor(signature, timestamp))).toBeTruthy();
    }
  });
});

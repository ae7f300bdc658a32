import { generateKeyPairSync } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jwsSegment, signEs256 } from './es256-jws.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwt = new JwtService({});

/** Header and claims with the shapes the issuer writes, any text in the string claims. */
const claims = fc.record({
  iss: fc.string(),
  aud: fc.string(),
  sub: fc.string(),
  client_id: fc.string(),
  tid: fc.integer({ min: 1 }),
  app: fc.integer({ min: 1 }),
  scope: fc.string(),
  jti: fc.uuid(),
  iat: fc.integer({ min: 1_700_000_000, max: 2_000_000_000 }),
  exp: fc.integer({ min: 2_000_000_001, max: 2_100_000_000 }),
  cv: fc.integer({ min: 1 }),
});
const header = fc.record({
  alg: fc.constant('ES256'),
  typ: fc.constantFrom('at+jwt', 'customer-session+jwt'),
  kid: fc.string({ minLength: 1 }),
});

describe('signEs256', () => {
  it('writes the header and claims segments jsonwebtoken writes, and jsonwebtoken accepts its signature', () => {
    fc.assert(
      fc.property(header, claims, (h, c) => {
        const ours = signEs256(jwsSegment(h), c, privateKey);
        const theirs = jwt.sign(c, {
          algorithm: 'ES256',
          privateKey: privateKey as unknown as string,
          keyid: h.kid,
          header: h,
        });
        const [ourHeader, ourClaims, ourSignature = ''] = ours.split('.');
        const [theirHeader, theirClaims] = theirs.split('.');
        expect([ourHeader, ourClaims]).toEqual([theirHeader, theirClaims]);
        // r||s of P-256: 64 bytes, as JWS ES256 requires (RFC 7518 3.4), not DER.
        expect(Buffer.from(ourSignature, 'base64url')).toHaveLength(64);
        expect(
          jwt.verify(ours, {
            publicKey: publicKey as unknown as string,
            algorithms: ['ES256'],
            ignoreExpiration: true,
          }),
        ).toEqual(c);
      }),
      { numRuns: 200 },
    );
  });

  it('is refused by jsonwebtoken when one byte of the signed part changes', () => {
    const segment = jwsSegment({ alg: 'ES256', typ: 'at+jwt', kid: 'k' });
    const token = signEs256(segment, { sub: 'a' }, privateKey);
    const [h, c, s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'b' })).toString('base64url')}.${s}`;
    expect(() =>
      jwt.verify(forged, { publicKey: publicKey as unknown as string, algorithms: ['ES256'] }),
    ).toThrow(/invalid signature/);
    expect(c).not.toEqual(forged.split('.')[1]);
  });
});

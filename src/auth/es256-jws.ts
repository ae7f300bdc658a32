import { sign, type KeyObject } from 'node:crypto';

/**
 * An ES256 JWS in compact form: base64url(header).base64url(claims).base64url(r||s).
 *
 * The same bytes jsonwebtoken (through jws and jwa) writes for the same header and claims,
 * signed by one `crypto.sign` call: that chain re-checks its options, streams the input
 * through a Sign object and converts the DER signature, about a tenth of the token
 * endpoint's CPU on Node 26 (docs/BENCHMARKS.md). Verification stays with @nestjs/jwt
 * (once per token; the verified-token cache serves the rest), and es256-jws.spec.ts checks
 * that it accepts what this writes.
 *
 * `header` is a segment made by `jwsSegment`: the issuer encodes its few headers once.
 */
export function signEs256(header: string, claims: object, privateKey: KeyObject): string {
  const input = `${header}.${jwsSegment(claims)}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}

/** base64url of the JSON of `value`: a JWS header or claims segment. */
export function jwsSegment(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

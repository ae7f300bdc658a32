import { hash } from 'node:crypto';
import { LruMap } from '../common/lru-map.js';
import type { RequestContext } from './request-context.js';
import type { PublishedKey } from './signing-keys.js';

/** Tokens in active use on one instance; an entry is well under 1 KB (≤ ~10 MB in all). */
export const MAX_VERIFIED_TOKENS = 10_000;

/** What the stateless checks (structure, kid, typ, signature, issuer, audience, claims) found. */
export interface SignedToken {
  context: RequestContext;
  /** The key that checked the signature; the entry is void once that key is not published. */
  key: PublishedKey;
  /** Expiry (epoch seconds), checked again on every use. */
  exp: number;
}

/**
 * Tokens that passed the stateless checks, so each is decoded and its ES256 signature checked
 * once rather than on every request. Liveness (app active, credentials version, revocation)
 * changes at runtime and is never cached here: the verifier checks it on every use.
 *
 * Keyed by SHA-256 of the token: memory holds no usable bearer token (heap snapshots, core
 * dumps) and keys have one size. Hashing costs ~1 µs against ~80 µs for the signature.
 */
export class VerifiedTokenCache extends LruMap<string, SignedToken> {
  constructor(capacity = MAX_VERIFIED_TOKENS) {
    super(capacity);
  }

  static keyOf(token: string): string {
    return hash('sha256', token, 'base64url');
  }
}

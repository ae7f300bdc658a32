import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ServerSecrets } from '../config/server-secrets.js';

export const SIGNING_ALGORITHM = 'ES256';

export interface PublishedKey {
  kid: string;
  /** Parsed once: verifying with a PEM string re-parses it on every call (3x slower). */
  key: KeyObject;
  /** SPKI PEM (tests forge tokens with it). */
  pem: string;
  jwk: JsonWebKey & { kid: string; alg: string; use: 'sig' };
}

/**
 * The ES256 key that signs tokens and every public key still accepted (the current one and
 * earlier ones kept for rotation). A key id is the RFC 7638 thumbprint of the public key.
 */
@Injectable()
export class SigningKeys {
  readonly currentKid: string;
  readonly privateKeyPem: string;
  private readonly published = new Map<string, PublishedKey>();

  constructor(secrets: ServerSecrets) {
    const privateKey = createPrivateKey(secrets.signingKeyPem);
    if (
      privateKey.asymmetricKeyType !== 'ec' ||
      privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
    ) {
      throw new Error('JWT_SIGNING_KEY must be an EC P-256 key (ES256)');
    }
    this.privateKeyPem = secrets.signingKeyPem;
    const current = publish(createPublicKey(privateKey));
    this.currentKid = current.kid;
    this.published.set(current.kid, current);
    for (const pem of secrets.extraPublicKeyPems) {
      const key = publish(createPublicKey(pem));
      this.published.set(key.kid, key);
    }
  }

  /** The public key for a token's `kid`, or undefined (unknown key: reject the token). */
  find(kid: unknown): PublishedKey | undefined {
    return typeof kid === 'string' ? this.published.get(kid) : undefined;
  }

  jwks(): { keys: PublishedKey['jwk'][] } {
    return { keys: [...this.published.values()].map((k) => k.jwk) };
  }
}

function publish(key: KeyObject): PublishedKey {
  const { crv, kty, x, y } = key.export({ format: 'jwk' });
  // RFC 7638: SHA-256 over the required members in lexicographic order.
  const kid = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
  const pem = key.export({ format: 'pem', type: 'spki' }).toString();
  return { kid, key, pem, jwk: { kty, crv, x, y, kid, alg: SIGNING_ALGORITHM, use: 'sig' } };
}

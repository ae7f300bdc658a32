import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { Db } from '../database/sql/db.js';
import { AppTokensRepository } from './app-tokens.repository.js';
import { TOKEN_TYPES } from './request-context.js';
import { jwsSegment, signEs256 } from './es256-jws.js';
import { SIGNING_ALGORITHM, SigningKeys } from './signing-keys.js';
import type { TokenClaims } from './token-claims.js';

export interface IssuedToken {
  accessToken: string;
  tokenId: string;
  expiresIn: number;
  scope: string;
}

export interface TokenSubject {
  appId: number;
  tenantId: number;
  clientId: string;
  credentialsVersion: number;
}

/** Signs access tokens (ES256, `kid`, `typ`) and records app tokens so they can be revoked. */
@Injectable()
export class AccessTokenIssuer {
  private readonly privateKey: KeyObject;
  /** The encoded header of each token type (`typ`) and key: the same for all their tokens. */
  private readonly headers = new Map<string, string>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: AppConfig,
    private readonly appTokens: AppTokensRepository,
  ) {
    this.privateKey = createPrivateKey(keys.privateKeyPem);
  }

  /**
   * An app token for exactly these (already authorised) scopes, recorded through `db` (the
   * caller's unit of work, or the pool). `issuer` defaults to this process's PUBLIC_URL; the
   * CLI passes the one the server published.
   */
  async issueAppToken(
    db: Db,
    subject: TokenSubject,
    scopes: string[],
    ttlSeconds: number,
    issuer = this.config.publicUrl,
  ): Promise<IssuedToken> {
    const jti = randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + ttlSeconds;
    await this.appTokens.insert(db.tenant(subject.tenantId), {
      jti,
      appId: subject.appId,
      scopes,
      credentialsVersion: subject.credentialsVersion,
      issuedAt: iat,
      expiresAt: exp,
    });
    const scope = scopes.join(' ');
    const claims: TokenClaims = {
      iss: issuer,
      aud: issuer,
      sub: subject.clientId,
      client_id: subject.clientId,
      tid: subject.tenantId,
      app: subject.appId,
      scope,
      jti,
      iat,
      exp,
      cv: subject.credentialsVersion,
    };
    return {
      accessToken: this.sign(claims, TOKEN_TYPES.app),
      tokenId: jti,
      expiresIn: ttlSeconds,
      scope,
    };
  }

  /**
   * A customer session token: same machinery, `typ` customer-session+jwt, `jti` = session id,
   * bound to the app (and its credentials version) that logged the customer in.
   */
  issueCustomerToken(
    subject: TokenSubject,
    session: { id: string; customerId: number; scopes: string[]; ttlSeconds: number },
  ): IssuedToken {
    const iat = Math.floor(Date.now() / 1000);
    const scope = session.scopes.join(' ');
    const claims: TokenClaims = {
      iss: this.config.publicUrl,
      aud: this.config.publicUrl,
      sub: String(session.customerId),
      client_id: subject.clientId,
      tid: subject.tenantId,
      app: subject.appId,
      scope,
      jti: session.id,
      iat,
      exp: iat + session.ttlSeconds,
      cv: subject.credentialsVersion,
      cid: session.customerId,
    };
    return {
      accessToken: this.sign(claims, TOKEN_TYPES.customer),
      tokenId: session.id,
      expiresIn: session.ttlSeconds,
      scope,
    };
  }

  sign(claims: TokenClaims, typ: string): string {
    const kid = this.keys.currentKid;
    let header = this.headers.get(`${typ} ${kid}`);
    if (header === undefined) {
      header = jwsSegment({ alg: SIGNING_ALGORITHM, typ, kid });
      this.headers.set(`${typ} ${kid}`, header);
    }
    return signEs256(header, claims, this.privateKey);
  }
}

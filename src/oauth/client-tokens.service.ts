import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppsService } from '../apps/apps.service.js';
import { appActor } from '../audit/actor.js';
import { AccessTokenVerifier } from '../auth/access-token-verifier.service.js';
import type { AppCredentials } from '../auth/credentials.repository.js';
import { CustomerSessions } from '../auth/customer-sessions.service.js';
import {
  type InspectedRefreshToken,
  RefreshChainsRepository,
} from '../auth/refresh-chains.repository.js';
import { hashRefreshToken, REFRESH_TOKEN_FORMAT } from '../auth/refresh-token.js';
import type { RequestContext } from '../auth/request-context.js';
import type { TokenClaims } from '../auth/token-claims.js';
import { AppError } from '../common/errors/app-error.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { Transactions } from '../database/transactions.js';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { SyncedRateLimiter } from '../rate-limit/synced-rate-limiter.service.js';
import { ClientAuthenticator } from './client-authenticator.service.js';
import { invalidRequest } from './client-credentials.js';
import type { IntrospectionDto } from './dto/token-reference.dto.js';
import { parseTokenReference } from './token-reference-request.js';

/** A token the authenticated client may revoke or introspect: one issued to it. */
type OwnToken =
  | { kind: 'access'; context: RequestContext; claims: TokenClaims }
  | { kind: 'refresh'; row: InspectedRefreshToken; hash: Buffer };

export interface ClientTokensAnswer<T> {
  body: T;
  headers: Record<string, string>;
}

/** A JWT is three base64url parts; anything else, or anything this long, is none of ours. */
const ACCESS_TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_ACCESS_TOKEN_LENGTH = 2048;

/**
 * What an app may do with the tokens issued to it (docs/BEHAVIOUR.md#revocation-and-introspection):
 * revoke them (RFC 7009) and introspect them (RFC 7662). Client authentication and its failure
 * limit are the token endpoint's; each endpoint has its own per-client limit of the token
 * endpoint's size, counted only for authenticated calls. A token of another app, tenant or kind
 * is answered as unknown: nothing revoked, `{active: false}`.
 */
@Injectable()
export class ClientTokensService {
  private readonly revocations: RateLimitRule;
  private readonly introspections: RateLimitRule;

  constructor(
    private readonly clients: ClientAuthenticator,
    private readonly verifier: AccessTokenVerifier,
    private readonly jwt: JwtService,
    private readonly chains: RefreshChainsRepository,
    private readonly sessions: CustomerSessions,
    private readonly apps: AppsService,
    private readonly transactions: Transactions,
    private readonly secrets: ServerSecrets,
    private readonly limiter: SyncedRateLimiter,
    config: AppConfig,
  ) {
    const limit = config.TOKEN_RATE_LIMIT_PER_CLIENT;
    this.revocations = { policy: 'revoke-client', limit, windowSeconds: 60 };
    this.introspections = { policy: 'introspect-client', limit, windowSeconds: 60 };
  }

  /**
   * RFC 7009: the same answer whether or not the token was known. An app token is revoked as by
   * `app revoke-token`; a customer session alone (its refresh chain lives on); a refresh token
   * ends its whole chain and every session of it, used up or not (RFC 7009 2.1).
   */
  async revoke(
    body: unknown,
    authorization: string | undefined,
    address: string,
  ): Promise<Record<string, string>> {
    const request = parseTokenReference(body, authorization);
    const app = await this.clients.authenticate(request.credentials, address);
    const headers = this.limiter.hit(this.revocations, app.clientId);
    const token = await this.ownToken(app, required(request.token));
    if (!token) return headers;
    await this.transactions.run(async (db) => {
      if (token.kind === 'refresh') {
        await this.sessions.endChain(db, app.tenantId, token.row.customer_id, token.row.chain_id);
      } else if (token.context.kind === 'app') {
        await this.apps.revokeTokenIn(
          db,
          app.tenantId,
          token.context.tokenId,
          appActor(app.clientId),
        );
      } else {
        await this.sessions.revokeOne(db, app.tenantId, token.context.tokenId);
      }
    });
    return headers;
  }

  /** RFC 7662: `{active: false}` for anything but a live token of the caller. */
  async introspect(
    body: unknown,
    authorization: string | undefined,
    address: string,
  ): Promise<ClientTokensAnswer<IntrospectionDto>> {
    const request = parseTokenReference(body, authorization);
    const app = await this.clients.authenticate(request.credentials, address);
    const headers = this.limiter.hit(this.introspections, app.clientId);
    const token = await this.ownToken(app, required(request.token));
    return { body: token ? describe(app, token) : { active: false }, headers };
  }

  private async ownToken(app: AppCredentials, token: string): Promise<OwnToken | undefined> {
    if (REFRESH_TOKEN_FORMAT.test(token)) {
      const hash = hashRefreshToken(token, this.secrets.pepper);
      const row = await this.chains.inspect(this.transactions.db.tenant(app.tenantId), hash);
      return row?.app_id === app.id ? { kind: 'refresh', row, hash } : undefined;
    }
    if (token.length > MAX_ACCESS_TOKEN_LENGTH || !ACCESS_TOKEN_SHAPE.test(token)) return undefined;
    let context: RequestContext;
    try {
      // Every check a request with this token gets: signature, kind, expiry, revocation, and
      // the app's state. A token that fails any of them is not live: nothing to revoke.
      context = await this.verifier.verify(token);
    } catch (error) {
      if (error instanceof AppError) return undefined;
      throw error;
    }
    if (context.tenantId !== app.tenantId || context.appId !== app.id) return undefined;
    const claims = this.jwt.decode<TokenClaims>(token);
    // The verifier's clock leeway is for requests; introspection says what the token says.
    if (claims.exp <= Date.now() / 1000) return undefined;
    return { kind: 'access', context, claims };
  }
}

function required(token: string | undefined): string {
  if (!token) throw invalidRequest('token is required');
  return token;
}

function describe(app: AppCredentials, token: OwnToken): IntrospectionDto {
  if (token.kind === 'access') {
    const { claims } = token;
    return {
      active: true,
      scope: claims.scope,
      client_id: claims.client_id,
      token_type: 'Bearer',
      exp: claims.exp,
      iat: claims.iat,
      sub: claims.sub,
      jti: claims.jti,
    };
  }
  const { row } = token;
  if (row.used || row.dead) return { active: false };
  return {
    active: true,
    // What its next use grants: never more than the app holds now (customer-refresh.service.ts).
    scope: row.scopes.filter((s) => app.approvedScopes.includes(s)).join(' '),
    client_id: app.clientId,
    token_type: 'Bearer',
    exp: Math.floor(row.ends_at.getTime() / 1000),
    iat: Math.floor(row.issued_at.getTime() / 1000),
    sub: String(row.customer_id),
    // Unique per token and reveals nothing of it: the stored hash is an HMAC under the pepper.
    jti: token.hash.subarray(0, 16).toString('base64url'),
  };
}

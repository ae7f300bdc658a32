import { Injectable } from '@nestjs/common';
import { AccessTokenIssuer } from '../auth/access-token-issuer.service.js';
import { parseScopeList } from '../auth/scopes.js';
import { AppError } from '../common/errors/app-error.js';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { SyncedRateLimiter } from '../rate-limit/synced-rate-limiter.service.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { ClientAuthenticator } from './client-authenticator.service.js';
import { parseTokenRequest } from './token-request.js';

export interface TokenResponse {
  body: { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string };
  headers: Record<string, string>;
}

const WINDOW_SECONDS = 60;

/**
 * The client_credentials grant (docs/BEHAVIOUR.md#token-endpoint). Checks in order: grant type,
 * presence and format of client credentials, client authentication (ClientAuthenticator: failures
 * count per caller address), scope.
 *
 * The per-client issuance limit counts tokens actually issued, which takes the secret, so
 * strangers never lock an app out. It is decided in memory and synced across instances (no round
 * trip on success).
 */
@Injectable()
export class TokenEndpointService {
  private readonly perClient: RateLimitRule;

  constructor(
    private readonly clients: ClientAuthenticator,
    private readonly issuer: AccessTokenIssuer,
    private readonly issuance: SyncedRateLimiter,
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
  ) {
    this.perClient = {
      policy: 'token-client',
      limit: config.TOKEN_RATE_LIMIT_PER_CLIENT,
      windowSeconds: WINDOW_SECONDS,
    };
  }

  async token(
    body: unknown,
    authorization: string | undefined,
    address: string,
  ): Promise<TokenResponse> {
    const request = parseTokenRequest(body, authorization);
    const app = await this.clients.authenticate(request, address);

    const scopes = parseScopeList(request.scope ?? '');
    if (scopes.length === 0) throw new AppError('invalid_request', 'scope is required');
    const unapproved = scopes.filter((s) => !app.approvedScopes.includes(s));
    if (unapproved.length > 0) {
      throw new AppError(
        'invalid_scope',
        `The requested scope ${unapproved.join(' ')} is not approved for the app`,
      );
    }

    // On the hot path, and it takes the secret to be counted: decided in memory, synced.
    const headers = this.issuance.hit(this.perClient, app.clientId);
    const issued = await this.issuer.issueAppToken(
      this.transactions.db,
      {
        appId: app.id,
        tenantId: app.tenantId,
        clientId: app.clientId,
        credentialsVersion: app.credentialsVersion,
      },
      scopes,
      this.config.ACCESS_TOKEN_TTL,
    );
    return {
      body: {
        access_token: issued.accessToken,
        token_type: 'Bearer',
        expires_in: issued.expiresIn,
        scope: issued.scope,
      },
      headers,
    };
  }
}

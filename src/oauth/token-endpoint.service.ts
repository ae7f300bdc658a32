import { Injectable } from '@nestjs/common';
import { verifyClientSecret } from '../apps/client-secret.js';
import { AccessTokenIssuer } from '../auth/access-token-issuer.service.js';
import { CredentialsState } from '../auth/credentials-state.service.js';
import { parseScopeList } from '../auth/scopes.js';
import { AppError } from '../common/errors/app-error.js';
import { ExactRateLimiter } from '../rate-limit/exact-rate-limiter.service.js';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { SyncedRateLimiter } from '../rate-limit/synced-rate-limiter.service.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { invalidClient, parseTokenRequest } from './token-request.js';

export interface TokenResponse {
  body: { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string };
  headers: Record<string, string>;
}

const WINDOW_SECONDS = 60;

/**
 * The client_credentials grant (docs/BEHAVIOUR.md#token-endpoint). Checks in order: grant type,
 * presence and format of client credentials, client authentication, scope. The app lookup is served
 * from the credentials cache, and the secret check is one HMAC: no argon2 on this path.
 *
 * Limits never let strangers lock an app out: failures are counted per caller address
 * (beyond the limit they answer 429), and the per-client issuance limit counts tokens
 * actually issued, which takes the secret. A 256-bit secret cannot be guessed, so failures
 * are never held against the app itself. Failures are counted exactly (one upsert, only on
 * failure); issuance in memory and synced across instances (no round trip on success).
 */
@Injectable()
export class TokenEndpointService {
  private readonly perClient: RateLimitRule;
  private readonly failuresPerAddress: RateLimitRule;

  constructor(
    private readonly state: CredentialsState,
    private readonly issuer: AccessTokenIssuer,
    private readonly secrets: ServerSecrets,
    private readonly limiter: ExactRateLimiter,
    private readonly issuance: SyncedRateLimiter,
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
  ) {
    this.perClient = {
      policy: 'token-client',
      limit: config.TOKEN_RATE_LIMIT_PER_CLIENT,
      windowSeconds: WINDOW_SECONDS,
    };
    this.failuresPerAddress = {
      policy: 'token-failures',
      limit: config.TOKEN_FAILURES_PER_ADDRESS,
      windowSeconds: WINDOW_SECONDS,
    };
  }

  async token(
    body: unknown,
    authorization: string | undefined,
    address: string,
  ): Promise<TokenResponse> {
    const request = parseTokenRequest(body, authorization);
    const app = await this.state.appByClientId(request.clientId);
    const authenticated =
      app !== undefined &&
      app.active &&
      verifyClientSecret(request.clientSecret, app.secretHash, this.secrets.pepper);
    if (!authenticated) {
      // Throws 429 once this address has failed too often; otherwise the failure is counted.
      await this.limiter.reserve(this.failuresPerAddress, address);
      throw invalidClient(request.usedBasic);
    }

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

import { Injectable } from '@nestjs/common';
import { verifyClientSecret } from '../apps/client-secret.js';
import type { AppCredentials } from '../auth/credentials.repository.js';
import { CredentialsState } from '../auth/credentials-state.service.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { ExactRateLimiter } from '../rate-limit/exact-rate-limiter.service.js';
import type { RateLimitRule } from '../rate-limit/rate-limit-rule.js';
import { type ClientCredentials, invalidClient } from './client-credentials.js';

/**
 * Client authentication for the token, revocation and introspection endpoints
 * (docs/BEHAVIOUR.md#token-endpoint). The app lookup is served from the credentials cache and the
 * secret check is one HMAC: no argon2 here. A 256-bit secret cannot be guessed, so failures are
 * never held against the app: they are counted exactly per caller address (one upsert, only on
 * failure), and beyond the limit they answer 429.
 */
@Injectable()
export class ClientAuthenticator {
  private readonly failuresPerAddress: RateLimitRule;

  constructor(
    private readonly state: CredentialsState,
    private readonly secrets: ServerSecrets,
    private readonly limiter: ExactRateLimiter,
    config: AppConfig,
  ) {
    this.failuresPerAddress = {
      policy: 'token-failures',
      limit: config.TOKEN_FAILURES_PER_ADDRESS,
      windowSeconds: 60,
    };
  }

  /** The active app these credentials belong to; 401 `invalid_client` (or 429) otherwise. */
  async authenticate(credentials: ClientCredentials, address: string): Promise<AppCredentials> {
    const app = await this.state.appByClientId(credentials.clientId);
    if (
      app !== undefined &&
      app.active &&
      verifyClientSecret(credentials.clientSecret, app.secretHash, this.secrets.pepper)
    ) {
      return app;
    }
    // Throws 429 once this address has failed too often; otherwise the failure is counted.
    await this.limiter.reserve(this.failuresPerAddress, address);
    throw invalidClient(credentials.usedBasic);
  }
}

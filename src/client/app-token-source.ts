import type { AppScope } from './app-scopes.js';
import type { RequestFetch } from './retrying-fetch.js';
import type { components } from './schema.js';

export interface AppCredentials {
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for; the token gets them only if they are approved for the app. */
  scopes: readonly AppScope[];
}

type TokenResponse = components['schemas']['TokenResponseDto'];

/** Renew this long before expiry, so a token never expires on its way to the server. */
const EARLY_RENEWAL_SECONDS = 60;

/**
 * App access tokens from the client credentials grant, cached until shortly before they
 * expire. Concurrent callers share one token request; `invalidate` drops a token the API
 * refused (revoked, rotated secret), so the next call gets a fresh one.
 */
export class AppTokenSource {
  private cached?: { token: string; renewAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly tokenUrl: string,
    private readonly credentials: AppCredentials,
    private readonly fetch: RequestFetch,
    private readonly now: () => number = Date.now,
  ) {}

  token(): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAt) return Promise.resolve(this.cached.token);
    this.pending ??= this.request().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async request(): Promise<string> {
    const response = await this.fetch(
      new Request(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: this.credentials.clientId,
          client_secret: this.credentials.clientSecret,
          scope: this.credentials.scopes.join(' '),
        }),
      }),
    );
    const body = (await response.json()) as
      TokenResponse | { error: string; error_description: string };
    if (!response.ok || !('access_token' in body)) {
      const error = body as { error?: string; error_description?: string };
      throw new TokenRequestError(response.status, error.error, error.error_description);
    }
    const lifetime = Math.max(0, body.expires_in - EARLY_RENEWAL_SECONDS);
    this.cached = { token: body.access_token, renewAt: this.now() + lifetime * 1000 };
    return body.access_token;
  }
}

/** The token endpoint refused: `error` is the OAuth error code (`invalid_client`, …). */
export class TokenRequestError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
    readonly description: string | undefined,
  ) {
    super(`token request refused: ${status} ${error ?? ''} ${description ?? ''}`.trim());
    this.name = 'TokenRequestError';
  }
}

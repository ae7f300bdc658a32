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

/** Renew this long before expiry (at most half the lifetime), so a token never expires on its way. */
const EARLY_RENEWAL_SECONDS = 60;
/** A refusal (wrong secret, inactive app, scope not approved) is answered from memory this long. */
const REFUSAL_MEMORY_MS = 30_000;

/**
 * App access tokens from the client credentials grant, cached until shortly before they
 * expire. Concurrent callers share one token request; `invalidate` drops a token the API
 * refused (revoked, rotated secret), so the next call gets a fresh one. A refused token
 * request is remembered for 30 s rather than repeated on every call (the token endpoint
 * counts failures per address). The secret lives in a private field: printing the source
 * (a logger, `util.inspect`) never shows it.
 */
export class AppTokenSource {
  readonly #credentials: AppCredentials;
  #cached?: { token: string; renewAt: number };
  #refused?: { error: TokenRequestError; until: number };
  #pending?: Promise<string>;

  constructor(
    private readonly tokenUrl: string,
    credentials: AppCredentials,
    private readonly fetch: RequestFetch,
    private readonly now: () => number = Date.now,
  ) {
    this.#credentials = { ...credentials };
  }

  /** The cached token while it is usable, without asking for one. */
  get current(): string | undefined {
    return this.#cached && this.now() < this.#cached.renewAt ? this.#cached.token : undefined;
  }

  token(): Promise<string> {
    const current = this.current;
    if (current !== undefined) return Promise.resolve(current);
    if (this.#refused && this.now() < this.#refused.until) {
      return Promise.reject(this.#refused.error);
    }
    this.#pending ??= this.request().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  private async request(): Promise<string> {
    const response = await this.fetch(
      new Request(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: this.#credentials.clientId,
          client_secret: this.#credentials.clientSecret,
          scope: this.#credentials.scopes.join(' '),
        }),
      }),
    );
    const body = (await response.json().catch(() => ({}))) as Partial<TokenResponse> & {
      error?: string;
      error_description?: string;
    };
    if (!response.ok || typeof body.access_token !== 'string') {
      const error = new TokenRequestError(response.status, body.error, body.error_description);
      // 429 and 5xx pass; a refusal of these credentials does not, so it is not repeated.
      if (response.status >= 400 && response.status < 500 && response.status !== 429) {
        this.#refused = { error, until: this.now() + REFUSAL_MEMORY_MS };
      }
      throw error;
    }
    this.#refused = undefined;
    const expiresIn = body.expires_in ?? 0;
    const early = Math.min(EARLY_RENEWAL_SECONDS, expiresIn / 2);
    this.#cached = { token: body.access_token, renewAt: this.now() + (expiresIn - early) * 1000 };
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

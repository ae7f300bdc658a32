import createClient, { type Client } from 'openapi-fetch';
import { type AppCredentials, AppTokenSource } from './app-token-source.js';
import {
  CustomerSession,
  type CustomerTokens,
  RefreshFailedError,
  SessionEndedError,
} from './customer-session.js';
import { type RequestFetch, type RetryOptions, retryingFetch } from './retrying-fetch.js';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export type { AppScope } from './app-scopes.js';
export { type AppCredentials, TokenRequestError } from './app-token-source.js';
export {
  CustomerSession,
  type CustomerTokens,
  RefreshFailedError,
  SessionEndedError,
} from './customer-session.js';
export type { RetryOptions } from './retrying-fetch.js';

export type StorefrontClient = Client<paths>;

export interface StorefrontClients {
  /** Calls with the app's token. */
  app: StorefrontClient;
  /** Calls with a customer session token. */
  asCustomer: (sessionToken: string) => StorefrontClient;
  /**
   * Calls with a customer session that renews itself: a session the API refuses is traded,
   * once, for a new one with the refresh token (`POST /v1/customers/token`, with the app's
   * token), and the call is repeated. `onRenewed` receives each new pair, to store it.
   */
  forCustomer: (
    tokens: CustomerTokens,
    onRenewed?: (tokens: CustomerTokens) => void,
  ) => { client: StorefrontClient; session: CustomerSession };
  /** The app's cached token (`tokens.token()` for a raw call). */
  tokens: AppTokenSource;
}

export interface StorefrontClientOptions extends AppCredentials {
  /** Where the service runs, e.g. `http://localhost:3000`. */
  baseUrl: string;
  retry?: RetryOptions;
  /** Defaults to the global fetch. */
  fetch?: RequestFetch;
}

/**
 * A typed client of the API for an app: every path, parameter and body is checked against
 * the OpenAPI document at compile time. It fetches and caches the app's token (a cached
 * token the API calls `invalid_token` is replaced once), and waits out `Retry-After` on 429
 * and, where repeating is safe, on 503.
 *
 * `client.app` calls app routes; `client.asCustomer(session)` calls the customer routes with
 * a session token from `POST /v1/customers/login`.
 */
export function createStorefrontClient(options: StorefrontClientOptions): StorefrontClients {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const network: RequestFetch = options.fetch ?? ((request) => fetch(request));
  const send = retryingFetch(network, options.retry);
  // Token requests are not retried: a 429 there means this address failed too often.
  const tokens = new AppTokenSource(`${baseUrl}/builders/oauth/token`, options, network);

  const withAppToken: RequestFetch = async (request) => {
    // Only a token taken from the cache may have died since; a fresh one is not retried.
    let renewable = tokens.current !== undefined;
    for (;;) {
      const token = await tokens.token();
      const authorized = new Request(request.clone(), {
        headers: withBearer(request.headers, token),
      });
      const response = await send(authorized);
      if (!renewable || !refusedToken(response)) return response;
      // Revoked, or the app's credentials changed: one retry with a new token.
      renewable = false;
      tokens.invalidate(token);
      await response.body?.cancel();
    }
  };

  const app = createClient<paths>({ baseUrl, fetch: withAppToken });
  const refresh = async (refreshToken: string): Promise<CustomerTokens> => {
    const { data, error, response } = await app.POST('/v1/customers/token', {
      body: { refresh_token: refreshToken },
    });
    if (!data) {
      const code = (error as { error?: string } | undefined)?.error;
      if (response.status === 400 && code === 'invalid_grant') {
        throw new SessionEndedError(response.status, code);
      }
      throw new RefreshFailedError(response.status, code);
    }
    return data;
  };

  const forCustomer = (pair: CustomerTokens, onRenewed?: (next: CustomerTokens) => void) => {
    const session = new CustomerSession(pair, refresh, onRenewed);
    const withSession: RequestFetch = async (request) => {
      const token = session.token;
      const response = await send(
        new Request(request.clone(), { headers: withBearer(request.headers, token) }),
      );
      if (!refusedToken(response)) return response;
      await response.body?.cancel();
      const renewed = await session.renewFrom(token);
      return send(new Request(request, { headers: withBearer(request.headers, renewed) }));
    };
    return { client: createClient<paths>({ baseUrl, fetch: withSession }), session };
  };

  return {
    app,
    asCustomer: (sessionToken) =>
      createClient<paths>({
        baseUrl,
        fetch: (request) =>
          send(new Request(request, { headers: withBearer(request.headers, sessionToken) })),
      }),
    forCustomer,
    tokens,
  };
}

/** A 401 about the bearer token itself (RFC 6750 `invalid_token`), not e.g. a wrong password. */
function refusedToken(response: Response): boolean {
  return (
    response.status === 401 &&
    (response.headers.get('www-authenticate') ?? '').includes('error="invalid_token"')
  );
}

function withBearer(headers: Headers, token: string): Headers {
  const copy = new Headers(headers);
  copy.set('authorization', `Bearer ${token}`);
  return copy;
}

import { describe, expect, it } from 'vitest';
import { createStorefrontClient } from './index.js';

/** A service that refuses every session and answers a refresh with `refreshStatus`. */
function client(refreshStatus: number, refreshError: string) {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  return createStorefrontClient({
    baseUrl: 'http://127.0.0.1:1',
    clientId: 'app_x',
    clientSecret: 'cs_x',
    scopes: ['customer:auth'],
    retry: { maxRetries: 0 },
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      if (path === '/builders/oauth/token') {
        return Promise.resolve(
          json(200, {
            access_token: 'at',
            token_type: 'Bearer',
            expires_in: 3600,
            scope: 'customer:auth',
          }),
        );
      }
      if (path === '/v1/customers/token') {
        return Promise.resolve(
          json(refreshStatus, { error: refreshError, error_description: 'x' }),
        );
      }
      return Promise.resolve(
        json(
          401,
          { error: 'unauthenticated', error_description: 'x' },
          {
            'www-authenticate': 'Bearer realm="api", error="invalid_token"',
          },
        ),
      );
    },
  });
}

describe('forCustomer: what a failed refresh throws', () => {
  it('invalid_grant: SessionEndedError (log in again)', async () => {
    const { client: customer } = client(400, 'invalid_grant').forCustomer({
      token: 's',
      refresh_token: 'r',
    });
    await expect(customer.GET('/v1/customers/me')).rejects.toMatchObject({
      name: 'SessionEndedError',
      error: 'invalid_grant',
    });
  });

  it('anything else: RefreshFailedError, and the session keeps its refresh token', async () => {
    const { client: customer, session } = client(503, 'unavailable').forCustomer({
      token: 's',
      refresh_token: 'r',
    });
    await expect(customer.GET('/v1/customers/me')).rejects.toMatchObject({
      name: 'RefreshFailedError',
      status: 503,
    });
    expect(session.token).toBe('s');
  });
});

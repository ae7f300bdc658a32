import { describe, expect, it } from 'vitest';
import { AppTokenSource, TokenRequestError } from './app-token-source.js';

function tokenServer(expiresIn = 3600) {
  const bodies: unknown[] = [];
  let issued = 0;
  const fetch = async (request: Request) => {
    bodies.push(await request.json());
    issued += 1;
    return Response.json({
      access_token: `t${issued}`,
      token_type: 'Bearer',
      expires_in: expiresIn,
      scope: 'orders:read',
    });
  };
  return { fetch, bodies, issued: () => issued };
}

const credentials = { clientId: 'app_1', clientSecret: 'cs_1', scopes: ['orders:read'] as const };

describe('AppTokenSource', () => {
  it('asks once (client_secret_post, the scopes joined) and serves the cached token', async () => {
    const server = tokenServer();
    const source = new AppTokenSource(
      'http://127.0.0.1/builders/oauth/token',
      credentials,
      server.fetch,
    );
    expect(await Promise.all([source.token(), source.token()])).toEqual(['t1', 't1']);
    expect(await source.token()).toBe('t1');
    expect(server.bodies).toEqual([
      {
        grant_type: 'client_credentials',
        client_id: 'app_1',
        client_secret: 'cs_1',
        scope: 'orders:read',
      },
    ]);
  });

  it('renews a minute before expiry, and after invalidate', async () => {
    let now = 0;
    const server = tokenServer(3600);
    const source = new AppTokenSource('http://x/t', credentials, server.fetch, () => now);
    expect(await source.token()).toBe('t1');
    now = 3539_000;
    expect(await source.token()).toBe('t1');
    now = 3540_000;
    expect(await source.token()).toBe('t2');
    source.invalidate('t1'); // an older token: nothing to drop
    expect(await source.token()).toBe('t2');
    source.invalidate('t2');
    expect(await source.token()).toBe('t3');
  });

  it('a refusal becomes a TokenRequestError with the OAuth error, and is not cached', async () => {
    let refuse = true;
    const fetch = async () =>
      refuse
        ? Response.json({ error: 'invalid_client', error_description: 'no' }, { status: 401 })
        : Response.json({ access_token: 'ok', token_type: 'Bearer', expires_in: 3600, scope: '' });
    const source = new AppTokenSource('http://x/t', credentials, fetch);
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 401, error: 'invalid_client' });
    refuse = false;
    expect(await source.token()).toBe('ok');
  });
});

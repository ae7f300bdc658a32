import { inspect } from 'node:util';
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

  it('a refusal is a TokenRequestError, answered from memory for 30 s, then asked again', async () => {
    let now = 0;
    let requests = 0;
    let refuse = true;
    const fetch = async () => {
      requests += 1;
      return refuse
        ? Response.json({ error: 'invalid_client', error_description: 'no' }, { status: 401 })
        : Response.json({ access_token: 'ok', token_type: 'Bearer', expires_in: 3600, scope: '' });
    };
    const source = new AppTokenSource('http://x/t', credentials, fetch, () => now);
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 401, error: 'invalid_client' });
    refuse = false;
    await expect(source.token()).rejects.toBe(error);
    expect(requests).toBe(1);
    now = 30_000;
    expect(await source.token()).toBe('ok');
    expect(requests).toBe(2);
  });

  it('a 429 or a body that is not a token is an error, not remembered', async () => {
    let answer: Response = new Response('<html>', { status: 502 });
    const source = new AppTokenSource('http://x/t', credentials, async () => answer);
    await expect(source.token()).rejects.toMatchObject({ status: 502 });
    answer = Response.json({ error: 'rate_limited' }, { status: 429 });
    await expect(source.token()).rejects.toMatchObject({ status: 429, error: 'rate_limited' });
    answer = Response.json({ access_token: 'ok', expires_in: 3600 });
    expect(await source.token()).toBe('ok');
  });

  it('a short-lived token is renewed at half its life, not on every call', async () => {
    let now = 0;
    const server = tokenServer(60);
    const source = new AppTokenSource('http://x/t', credentials, server.fetch, () => now);
    expect(await source.token()).toBe('t1');
    now = 29_000;
    expect(await source.token()).toBe('t1');
    now = 30_000;
    expect(await source.token()).toBe('t2');
  });

  it('never shows the secret when printed', () => {
    const source = new AppTokenSource('http://x/t', credentials, tokenServer().fetch);
    expect(inspect(source, { depth: 5, showHidden: true })).not.toContain('cs_1');
    expect(JSON.stringify(source)).not.toContain('cs_1');
  });
});

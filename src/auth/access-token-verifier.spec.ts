import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppTokensRepository } from './app-tokens.repository.js';
import { loadAppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { AccessTokenIssuer } from './access-token-issuer.service.js';
import { AccessTokenVerifier } from './access-token-verifier.service.js';
import type { AppCredentials, CredentialsState } from './credentials-state.service.js';
import { TOKEN_TYPES } from './request-context.js';
import { SigningKeys } from './signing-keys.js';
import type { TokenClaims } from './token-claims.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

const ISSUER = 'http://issuer.test';
const TENANT = 1;
const APP = 10;

/** CredentialsState's answers, kept in maps the tests change as admin actions would. */
class FakeState {
  readonly apps = new Map<
    number,
    Pick<AppCredentials, 'tenantId' | 'active' | 'credentialsVersion'>
  >([[APP, { tenantId: TENANT, active: true, credentialsVersion: 1 }]]);
  readonly revokedTokens = new Set<string>();
  readonly revokedSessions = new Set<string>();
  appById = vi.fn((tenantId: number, appId: number) => {
    const app = this.apps.get(appId);
    return Promise.resolve(app?.tenantId === tenantId ? app : undefined);
  });
  isTokenRevoked = (_tenantId: number, jti: string) => Promise.resolve(this.revokedTokens.has(jti));
  isSessionRevoked = (_tenantId: number, id: string) =>
    Promise.resolve(this.revokedSessions.has(id));
  /** A trusted cache answers at once; an untrusted one leaves every check to the calls above. */
  trusted = false;
  cachedApp = (tenantId: number, appId: number) => {
    const app = this.trusted ? this.apps.get(appId) : undefined;
    return app?.tenantId === tenantId ? app : undefined;
  };
  cachedRevocation = (kind: 'app' | 'customer', id: string) =>
    this.trusted ? (kind === 'app' ? this.revokedTokens : this.revokedSessions).has(id) : undefined;
}

describe('AccessTokenVerifier with its verified-token cache', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = new SigningKeys(
    new ServerSecrets(
      Buffer.alloc(32),
      privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      [],
    ),
  );
  const config = loadAppConfig({ PUBLIC_URL: ISSUER });
  const jwt = new JwtService();
  const issuer = new AccessTokenIssuer(keys, config, {} as AppTokensRepository);
  let state: FakeState;
  let cache: VerifiedTokenCache;
  let verifier: AccessTokenVerifier;

  const newVerifier = (capacity?: number) => {
    cache = new VerifiedTokenCache(capacity);
    verifier = new AccessTokenVerifier(
      jwt,
      keys,
      config,
      state as unknown as CredentialsState,
      cache,
    );
  };

  beforeEach(() => {
    state = new FakeState();
    newVerifier();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  function claims(overrides: Partial<TokenClaims> = {}): TokenClaims {
    const iat = Math.floor(Date.now() / 1000);
    return {
      iss: ISSUER,
      aud: ISSUER,
      sub: 'client-1',
      client_id: 'client-1',
      tid: TENANT,
      app: APP,
      scope: 'orders:read products:read',
      jti: randomUUID(),
      iat,
      exp: iat + 3600,
      cv: 1,
      ...overrides,
    };
  }
  const appToken = (overrides?: Partial<TokenClaims>) =>
    issuer.sign(claims(overrides), TOKEN_TYPES.app);
  const jtiOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as TokenClaims).jti;

  it('a cache hit neither decodes nor checks the signature again; liveness runs every time', async () => {
    const token = appToken();
    const verify = vi.spyOn(jwt, 'verify');
    const decode = vi.spyOn(jwt, 'decode');
    const first = await verifier.verify(token);
    const second = await verifier.verify(token);
    expect(second).toEqual(first);
    expect(first).toMatchObject({
      kind: 'app',
      tenantId: TENANT,
      appId: APP,
      credentialsVersion: 1,
    });
    expect([...first.scopes]).toEqual(['orders:read', 'products:read']);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(decode).toHaveBeenCalledTimes(1);
    expect(state.appById).toHaveBeenCalledTimes(2);
    // Each request gets its own context object.
    expect(second).not.toBe(first);
  });

  it('an expired cached token is refused, with the same 5 s leeway as a first verification', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Math.floor(Date.now() / 1000);
    const token = appToken({ iat: now, exp: now + 60 });
    await verifier.verify(token);
    vi.setSystemTime((now + 64) * 1000);
    await expect(verifier.verify(token)).resolves.toMatchObject({ kind: 'app' });
    vi.setSystemTime((now + 65) * 1000);
    await expect(verifier.verify(token)).rejects.toThrow('The token has expired');
    expect(cache.size).toBe(0);
  });

  it('with a trusted credentials cache, its answers decide without a call: revocation, deactivation and rotation still refuse', async () => {
    state.trusted = true;
    const [revoked, older] = [appToken(), appToken()];
    await expect(verifier.verify(revoked)).resolves.toMatchObject({ appId: APP });
    expect(state.appById).not.toHaveBeenCalled();
    state.revokedTokens.add(jtiOf(revoked));
    await expect(verifier.verify(revoked)).rejects.toThrow('The token has been revoked');
    state.apps.get(APP)!.credentialsVersion = 2;
    await expect(verifier.verify(older)).rejects.toThrow('The token is no longer valid');
    await expect(verifier.verify(appToken({ cv: 2 }))).resolves.toMatchObject({
      credentialsVersion: 2,
    });
    state.apps.get(APP)!.active = false;
    await expect(verifier.verify(appToken({ cv: 2 }))).rejects.toThrow('no longer valid');
    // Not in the cache (another tenant's app id, or a miss): the call decides.
    state.apps.delete(APP);
    await expect(verifier.verify(appToken({ cv: 2 }))).rejects.toThrow('no longer valid');
    expect(state.appById).toHaveBeenCalledTimes(1);
  });

  it('a revoked token is refused although cached', async () => {
    const token = appToken();
    await verifier.verify(token);
    state.revokedTokens.add(jtiOf(token));
    await expect(verifier.verify(token)).rejects.toThrow('The token has been revoked');
  });

  it('a cached token of a deactivated app is refused', async () => {
    const token = appToken();
    await verifier.verify(token);
    state.apps.get(APP)!.active = false;
    await expect(verifier.verify(token)).rejects.toThrow('The token is no longer valid');
  });

  it('a cached token issued before a secret rotation or scope change (credentials version bump) is refused', async () => {
    const token = appToken();
    await verifier.verify(token);
    state.apps.get(APP)!.credentialsVersion = 2;
    await expect(verifier.verify(token)).rejects.toThrow('The token is no longer valid');
    // A token issued under the new version is accepted.
    await expect(verifier.verify(appToken({ cv: 2 }))).resolves.toMatchObject({
      credentialsVersion: 2,
    });
  });

  it('a cached token of an app that no longer exists is refused', async () => {
    const token = appToken();
    await verifier.verify(token);
    state.apps.delete(APP);
    await expect(verifier.verify(token)).rejects.toThrow('The token is no longer valid');
  });

  it('a cached customer session is refused once the session is revoked (logout)', async () => {
    const session = randomUUID();
    const token = issuer.sign(claims({ jti: session, cid: 7, sub: '7' }), TOKEN_TYPES.customer);
    await expect(verifier.verify(token)).resolves.toMatchObject({
      kind: 'customer',
      customerId: 7,
    });
    await expect(verifier.verify(token)).resolves.toMatchObject({ customerId: 7 });
    state.revokedSessions.add(session);
    await expect(verifier.verify(token)).rejects.toThrow('The token has been revoked');
  });

  it('a cached token whose signing key is no longer published is refused', async () => {
    const token = appToken();
    await verifier.verify(token);
    vi.spyOn(keys, 'find').mockReturnValue(undefined);
    await expect(verifier.verify(token)).rejects.toThrow('The token is not signed by a known key');
    expect(cache.size).toBe(0);
  });

  it('a refused token is not cached: it is verified in full every time', async () => {
    const verify = vi.spyOn(jwt, 'verify');
    state.apps.get(APP)!.active = false;
    const token = appToken();
    await expect(verifier.verify(token)).rejects.toThrow('no longer valid');
    expect(cache.size).toBe(0);
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    await expect(verifier.verify(forged)).rejects.toThrow('signature or claims are invalid');
    await expect(verifier.verify(forged)).rejects.toThrow('signature or claims are invalid');
    expect(cache.size).toBe(0);
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('holds at most its bound: a token pushed out is verified again', async () => {
    newVerifier(2);
    const verify = vi.spyOn(jwt, 'verify');
    const [a, b, c] = [appToken(), appToken(), appToken()];
    for (const token of [a, b, c]) await verifier.verify(token);
    expect(cache.size).toBe(2);
    expect(verify).toHaveBeenCalledTimes(3);
    await verifier.verify(c); // still cached
    expect(verify).toHaveBeenCalledTimes(3);
    await verifier.verify(a); // evicted: verified again, and now pushes b out
    expect(verify).toHaveBeenCalledTimes(4);
    expect(cache.size).toBe(2);
  });

  it('keys the cache by a hash of the token, never the token itself', async () => {
    const token = appToken();
    await verifier.verify(token);
    expect(cache.get(VerifiedTokenCache.keyOf(token))).toBeDefined();
    expect(cache.get(token)).toBeUndefined();
  });
});

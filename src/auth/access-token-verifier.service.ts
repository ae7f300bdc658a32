import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppError } from '../common/errors/app-error.js';
import { AppConfig } from '../config/app-config.js';
import { CredentialsState } from './credentials-state.service.js';
import { TOKEN_TYPES, type RequestContext } from './request-context.js';
import { SIGNING_ALGORITHM, SigningKeys } from './signing-keys.js';
import type { TokenClaims } from './token-claims.js';
import { type SignedToken, VerifiedTokenCache } from './verified-token-cache.js';

/**
 * Leeway for clock differences; issuer and verifier share a clock
 * (docs/BEHAVIOUR.md#access-tokens).
 */
const CLOCK_TOLERANCE_SECONDS = 5;

export function invalidToken(reason: string): AppError {
  return new AppError('unauthenticated', reason, {
    headers: { 'www-authenticate': 'Bearer realm="api", error="invalid_token"' },
  });
}

/**
 * Turns a bearer token into a RequestContext, or refuses it. Checks, in order: structure,
 * known `kid`, `typ` (token kind), ES256 signature (no other algorithm, never `none`),
 * issuer, audience, expiry, claim types, and then liveness: the app is active, its
 * credentials have not changed since issue, and the token or session is not revoked.
 *
 * The stateless checks run once per token (VerifiedTokenCache); every request checks again
 * that the key is still published, the expiry and liveness, so a revocation, deactivation,
 * rotation or scope change refuses a cached token as soon as CredentialsState knows of it.
 */
@Injectable()
export class AccessTokenVerifier {
  constructor(
    private readonly jwt: JwtService,
    private readonly keys: SigningKeys,
    private readonly config: AppConfig,
    private readonly state: CredentialsState,
    private readonly cache: VerifiedTokenCache,
  ) {}

  async verify(token: string): Promise<RequestContext> {
    const cacheKey = VerifiedTokenCache.keyOf(token);
    const cached = this.usableCacheEntry(cacheKey);
    const signed = cached ?? this.verifySignedClaims(token);
    const { context } = signed;
    // The cache's answers first: two awaited promises fewer on nearly every request.
    const app =
      this.state.cachedApp(context.tenantId, context.appId) ??
      (await this.state.appById(context.tenantId, context.appId));
    if (!app?.active || app.credentialsVersion !== context.credentialsVersion) {
      throw invalidToken('The token is no longer valid');
    }
    const revoked =
      this.state.cachedRevocation(context.kind, context.tokenId) ??
      (context.kind === 'app'
        ? await this.state.isTokenRevoked(context.tenantId, context.tokenId)
        : await this.state.isSessionRevoked(context.tenantId, context.tokenId));
    if (revoked) throw invalidToken('The token has been revoked');
    // Only tokens that passed every check are remembered.
    if (!cached) this.cache.set(cacheKey, signed);
    // A copy: the cached context is shared by every request with this token.
    return { ...context };
  }

  /**
   * The cached result for this token while its key is still published and it has not expired
   * (the same leeway as jsonwebtoken's check); otherwise the entry is dropped and the full
   * verification decides, refusing the token with the same answer as on a first use.
   * SigningKeys is fixed for the process's life today; the key check keeps it safe if that
   * changes.
   */
  private usableCacheEntry(cacheKey: string): SignedToken | undefined {
    const entry = this.cache.get(cacheKey);
    if (!entry) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (this.keys.find(entry.key.kid) === entry.key && now < entry.exp + CLOCK_TOLERANCE_SECONDS) {
      return entry;
    }
    this.cache.delete(cacheKey);
    return undefined;
  }

  private verifySignedClaims(token: string): SignedToken {
    let decoded: unknown;
    try {
      decoded = this.jwt.decode(token, { complete: true });
    } catch {
      // jws parses the payload as JSON when the header says `typ: JWT`, and throws on garbage.
      throw invalidToken('The token is malformed');
    }
    const header = (decoded as { header?: { kid?: unknown; typ?: unknown } } | null)?.header;
    if (!header) throw invalidToken('The token is malformed');
    const key = this.keys.find(header.kid);
    if (!key) throw invalidToken('The token is not signed by a known key');
    const kind =
      header.typ === TOKEN_TYPES.app
        ? 'app'
        : header.typ === TOKEN_TYPES.customer
          ? 'customer'
          : undefined;
    if (!kind) throw invalidToken('The token is not an access token');
    let claims: unknown;
    try {
      claims = this.jwt.verify(token, {
        // @nestjs/jwt types this as string | Buffer but hands it to jsonwebtoken, which takes
        // a KeyObject: parsed once instead of per request (221 µs → 77 µs per verification).
        publicKey: key.key as unknown as string,
        algorithms: [SIGNING_ALGORITHM],
        issuer: this.config.publicUrl,
        audience: this.config.publicUrl,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
    } catch (error) {
      const expired = error instanceof Error && error.name === 'TokenExpiredError';
      throw invalidToken(
        expired ? 'The token has expired' : 'The token signature or claims are invalid',
      );
    }
    if (!hasClaimTypes(claims) || (kind === 'customer') !== (claims.cid !== undefined)) {
      throw invalidToken('The token claims are invalid');
    }
    return { context: contextOf(kind, claims), key, exp: claims.exp };
  }
}

function contextOf(kind: RequestContext['kind'], claims: TokenClaims): RequestContext {
  const base = {
    tenantId: claims.tid,
    appId: claims.app,
    clientId: claims.client_id,
    scopes: new Set(claims.scope.split(' ').filter(Boolean)),
    tokenId: claims.jti,
    credentialsVersion: claims.cv,
  };
  if (kind === 'app') return { kind, ...base };
  // hasClaimTypes and the kind check established that a customer token carries its customer.
  return { kind, ...base, customerId: claims.cid! };
}

function hasClaimTypes(c: unknown): c is TokenClaims {
  const claims = c as Partial<TokenClaims>;
  return (
    Number.isSafeInteger(claims.tid) &&
    Number.isSafeInteger(claims.app) &&
    Number.isSafeInteger(claims.cv) &&
    typeof claims.jti === 'string' &&
    typeof claims.scope === 'string' &&
    typeof claims.client_id === 'string' &&
    // Always set by our issuer; the cache checks it again on every use.
    typeof claims.exp === 'number' &&
    (claims.cid === undefined || Number.isSafeInteger(claims.cid))
  );
}

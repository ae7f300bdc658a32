import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccessTokenIssuer } from '../auth/access-token-issuer.service.js';
import type { AppContext } from '../auth/request-context.js';
import { AppError } from '../common/errors/app-error.js';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from '../config/server-secrets.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { Transactions } from '../database/transactions.js';
import { toCustomerDto } from './customer.mapper.js';
import { CustomerSessions } from '../auth/customer-sessions.service.js';
import { type CustomerRow, CustomersRepository } from './customers.repository.js';
import type { LoginResponseDto } from './dto/customer.dto.js';
import { type ChainExpiry, RefreshChainsRepository } from '../auth/refresh-chains.repository.js';
import {
  generateRefreshToken,
  hashRefreshToken,
  REFRESH_TOKEN_FORMAT,
} from '../auth/refresh-token.js';

/** The scopes a session can carry; it gets those the logging-in app token holds. */
export const SESSION_SCOPES = ['customer:read', 'order:read'];

/** A session opened in a unit of work, to be answered once it commits. */
interface OpenedSession {
  customer: CustomerRow;
  sessionId: string;
  scopes: string[];
  ttlSeconds: number;
  refreshToken: string;
  expiry: ChainExpiry;
}

type Refreshed = { ok: true; opened: OpenedSession } | { ok: false };

/**
 * Customer sessions and their refresh chains (docs/BEHAVIOUR.md#refresh-tokens): a login opens
 * a chain; each refresh uses its token up and gives the next one with a new session; a used-up
 * token presented again ends the whole chain (RFC 9700 §4.14: it was stolen).
 */
@Injectable()
export class CustomerRefresh {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly chains: RefreshChainsRepository,
    private readonly sessions: CustomerSessions,
    private readonly tokens: AccessTokenIssuer,
    private readonly transactions: Transactions,
    private readonly secrets: ServerSecrets,
    private readonly config: AppConfig,
  ) {}

  /**
   * A login's new chain and its first session, in one unit of work. 401
   * `invalid_credentials` (nothing written) when the password is no longer `passwordHash`: it
   * changed while it was checked.
   */
  async openForLogin(
    ctx: AppContext,
    customer: CustomerRow,
    passwordHash: string,
  ): Promise<LoginResponseDto> {
    const opened = await this.transactions.run(async (db): Promise<OpenedSession> => {
      const tenant = db.tenant(ctx.tenantId);
      const chainId = randomUUID();
      const scopes = SESSION_SCOPES.filter((s) => ctx.scopes.has(s));
      const refreshToken = generateRefreshToken();
      const expiry = await this.chains.open(tenant, {
        id: chainId,
        customerId: customer.id,
        appId: ctx.appId,
        scopes,
        ttlSeconds: this.config.CUSTOMER_REFRESH_TTL,
        idleSeconds: this.config.CUSTOMER_REFRESH_IDLE,
        tokenHash: this.hash(refreshToken),
      });
      const session = await this.insertSession(
        ctx,
        tenant,
        customer,
        chainId,
        passwordHash,
        scopes,
        endOf(expiry),
      );
      if (!session) {
        throw new AppError('invalid_credentials', 'The email or password is incorrect');
      }
      return { customer, ...session, refreshToken, expiry };
    });
    return this.answer(ctx, opened);
  }

  /**
   * `POST /v1/customers/token`: 400 `invalid_grant` for a token that is not a live, unused one
   * of this app's chains. A used-up one ends its chain first (committed), then is refused;
   * another app's or tenant's changes nothing.
   */
  async refresh(ctx: AppContext, refreshToken: string): Promise<LoginResponseDto> {
    if (!REFRESH_TOKEN_FORMAT.test(refreshToken)) throw invalidGrant();
    const presentedHash = this.hash(refreshToken);
    const outcome = await this.transactions.run(async (db): Promise<Refreshed> => {
      const tenant = db.tenant(ctx.tenantId);
      // Locks in the order of resets and password changes: customer, chain, sessions.
      const customerId = await this.chains.customerOf(tenant, presentedHash);
      if (customerId === undefined) return { ok: false };
      if (!(await this.customers.holdAgainstChange(tenant, customerId))) return { ok: false };
      const presented = await this.chains.present(tenant, presentedHash);
      if (!presented || presented.app_id !== ctx.appId) return { ok: false };
      // A replay ends what is left of the chain, whether or not it has ended or expired.
      if (presented.used) {
        await this.sessions.endChain(db, ctx.tenantId, presented.customer_id, presented.chain_id);
        return { ok: false };
      }
      if (presented.dead) return { ok: false };
      const customer = await this.customers.byId(tenant, presented.customer_id);
      if (!customer) return { ok: false };
      // Never more than the chain began with, nor than the app token holds now.
      const scopes = presented.scopes.filter((s) => ctx.scopes.has(s));
      const session = await this.insertSession(
        ctx,
        tenant,
        customer,
        presented.chain_id,
        null,
        scopes,
        presented.ends_at,
      );
      if (!session) return { ok: false };
      const next = generateRefreshToken();
      const expiry = await this.chains.rotate(
        tenant,
        presented.chain_id,
        presentedHash,
        this.hash(next),
        this.config.CUSTOMER_REFRESH_IDLE,
      );
      return { ok: true, opened: { customer, ...session, refreshToken: next, expiry } };
    });
    if (!outcome.ok) throw invalidGrant();
    return this.answer(ctx, outcome.opened);
  }

  /** A session of the chain, living `CUSTOMER_SESSION_TTL` but never past `chainEnd`. */
  private async insertSession(
    ctx: AppContext,
    tenant: TenantSql,
    customer: CustomerRow,
    chainId: string,
    passwordHash: string | null,
    scopes: string[],
    chainEnd: Date,
  ): Promise<{ sessionId: string; scopes: string[]; ttlSeconds: number } | undefined> {
    const sessionId = randomUUID();
    const ttlSeconds = Math.max(
      1,
      Math.min(
        this.config.CUSTOMER_SESSION_TTL,
        Math.floor((chainEnd.getTime() - Date.now()) / 1000),
      ),
    );
    const inserted = await this.customers.insertSession(tenant, {
      id: sessionId,
      customerId: customer.id,
      appId: ctx.appId,
      scopes,
      ttlSeconds,
      passwordHash,
      chainId,
    });
    return inserted ? { sessionId, scopes, ttlSeconds } : undefined;
  }

  private answer(ctx: AppContext, opened: OpenedSession): LoginResponseDto {
    const token = this.tokens.issueCustomerToken(
      {
        appId: ctx.appId,
        tenantId: ctx.tenantId,
        clientId: ctx.clientId,
        credentialsVersion: ctx.credentialsVersion,
      },
      {
        id: opened.sessionId,
        customerId: opened.customer.id,
        scopes: opened.scopes,
        ttlSeconds: opened.ttlSeconds,
      },
    );
    const refreshEnd = endOf(opened.expiry).getTime();
    return {
      token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      scope: token.scope,
      refresh_token: opened.refreshToken,
      refresh_expires_in: Math.max(0, Math.round((refreshEnd - Date.now()) / 1000)),
      customer: toCustomerDto(opened.customer),
    };
  }

  private hash(token: string): Buffer {
    return hashRefreshToken(token, this.secrets.pepper);
  }
}

/** The sooner of a chain's absolute and idle ends. */
function endOf(expiry: ChainExpiry): Date {
  return new Date(Math.min(expiry.expires_at.getTime(), expiry.idle_expires_at.getTime()));
}

/** 400 `invalid_grant`: the same answer for an unknown, expired, used-up or ended token. */
function invalidGrant(): AppError {
  return new AppError(
    'invalid_grant',
    'The refresh token is unknown, expired, already used or ended; log in again',
  );
}

import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** A refresh token found by its hash, with its chain, both rows locked. */
export interface PresentedRefreshToken {
  chain_id: string;
  /** The sooner of the chain's absolute and idle ends: no session of it may outlive it. */
  ends_at: Date;
  customer_id: number;
  app_id: number;
  scopes: string[];
  used: boolean;
  /** The chain ended, or passed its absolute or idle expiry. */
  dead: boolean;
}

export interface InspectedRefreshToken extends PresentedRefreshToken {
  issued_at: Date;
}

const PRESENTED = `c.id AS chain_id, least(c.expires_at, c.idle_expires_at) AS ends_at, c.customer_id,
  c.app_id, c.scopes, t.used_at IS NOT NULL AS used,
  (c.ended_at IS NOT NULL OR c.expires_at <= now() OR c.idle_expires_at <= now()) AS dead`;
const TOKEN_AND_CHAIN = `customer_refresh_tokens t
  JOIN customer_refresh_chains c ON c.tenant_id = t.tenant_id AND c.id = t.chain_id`;

/** A chain's lifetimes after a use: the sooner of the two bounds the refresh token. */
export interface ChainExpiry {
  expires_at: Date;
  idle_expires_at: Date;
}

/** Refresh chains and their tokens; every statement in the caller's unit of work. */
@Injectable()
export class RefreshChainsRepository {
  /** A new chain with its first token (a login). */
  async open(
    db: TenantSql,
    chain: {
      id: string;
      customerId: number;
      appId: number;
      scopes: string[];
      ttlSeconds: number;
      idleSeconds: number;
      tokenHash: Buffer;
    },
  ): Promise<ChainExpiry> {
    const [row] = await db.rows<ChainExpiry>(
      `WITH c AS (
         INSERT INTO customer_refresh_chains
           (tenant_id, id, customer_id, app_id, scopes, expires_at, idle_expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6),
           least(now() + make_interval(secs => $6), now() + make_interval(secs => $7)))
         RETURNING id, expires_at, idle_expires_at),
       t AS (
         INSERT INTO customer_refresh_tokens (tenant_id, token_hash, chain_id)
         SELECT $1, $8, c.id FROM c)
       SELECT expires_at, idle_expires_at FROM c`,
      [
        chain.id,
        chain.customerId,
        chain.appId,
        chain.scopes,
        chain.ttlSeconds,
        chain.idleSeconds,
        chain.tokenHash,
      ],
    );
    return row;
  }

  /**
   * The customer of the chain of the token with this hash, read without a lock: the caller
   * locks the customer first (customer, then chain, then sessions: the order of password
   * changes and resets), then presents the token.
   */
  async customerOf(db: TenantSql, tokenHash: Buffer): Promise<number | undefined> {
    const row = await db.first<{ customer_id: number }>(
      `SELECT c.customer_id FROM ${TOKEN_AND_CHAIN}
       WHERE t.tenant_id = $1 AND t.token_hash = $2`,
      [tokenHash],
    );
    return row?.customer_id;
  }

  /**
   * The token with this hash and its chain, both locked until the unit of work ends, so that
   * concurrent presentations of one token run one after the other and only the first finds it
   * unused.
   */
  present(db: TenantSql, tokenHash: Buffer): Promise<PresentedRefreshToken | undefined> {
    return db.first<PresentedRefreshToken>(
      `SELECT ${PRESENTED} FROM ${TOKEN_AND_CHAIN} WHERE t.tenant_id = $1 AND t.token_hash = $2
       FOR UPDATE OF c, t`,
      [tokenHash],
    );
  }

  /** The token with this hash and its chain as they are, nothing locked (introspection). */
  inspect(db: TenantSql, tokenHash: Buffer): Promise<InspectedRefreshToken | undefined> {
    return db.first<InspectedRefreshToken>(
      `SELECT ${PRESENTED}, t.issued_at FROM ${TOKEN_AND_CHAIN}
       WHERE t.tenant_id = $1 AND t.token_hash = $2`,
      [tokenHash],
    );
  }

  /** Uses the presented token up and gives the chain its next one; the chain's idle expiry moves. */
  async rotate(
    db: TenantSql,
    chainId: string,
    used: Buffer,
    next: Buffer,
    idleSeconds: number,
  ): Promise<ChainExpiry> {
    const [row] = await db.rows<ChainExpiry>(
      `WITH used AS (
         UPDATE customer_refresh_tokens SET used_at = now()
         WHERE tenant_id = $1 AND token_hash = $3),
       next AS (
         INSERT INTO customer_refresh_tokens (tenant_id, token_hash, chain_id) VALUES ($1, $4, $2))
       UPDATE customer_refresh_chains
       SET idle_expires_at = least(expires_at, now() + make_interval(secs => $5))
       WHERE tenant_id = $1 AND id = $2
       RETURNING expires_at, idle_expires_at`,
      [chainId, used, next, idleSeconds],
    );
    return row;
  }

  /** Ends these chains of the customer (all of them when `chainId` is null). */
  end(db: TenantSql, customerId: number, chainId: string | null): Promise<number> {
    return db.count(
      `UPDATE customer_refresh_chains SET ended_at = now()
       WHERE tenant_id = $1 AND customer_id = $2 AND ended_at IS NULL
         AND ($3::uuid IS NULL OR id = $3::uuid)`,
      [customerId, chainId],
    );
  }
}

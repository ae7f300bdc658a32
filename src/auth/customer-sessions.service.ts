import { Injectable } from '@nestjs/common';
import type { Db } from '../database/sql/db.js';
import { CredentialsEvents } from './credentials-events.service.js';
import { CustomerSessionsRepository } from './customer-sessions.repository.js';
import { RefreshChainsRepository } from './refresh-chains.repository.js';

/**
 * Ends a customer's sessions through the revocation path of docs/BEHAVIOUR.md#token-lifecycle: the
 * rows are marked revoked and each is announced (CredentialsEvents): this instance refuses those
 * tokens once the change commits, the others within milliseconds of it. Every path ends chains
 * before sessions, so concurrent paths lock in one order.
 */
@Injectable()
export class CustomerSessions {
  constructor(
    private readonly sessions: CustomerSessionsRepository,
    private readonly credentials: CredentialsEvents,
    private readonly chains: RefreshChainsRepository,
  ) {}

  /**
   * Every live session of the customer except `keep`, and every refresh chain (`keep`'s too:
   * its refresh token is refused from now on); in the caller's unit of work. The chains end
   * first: a refresh that holds one commits its new session before the sessions are revoked,
   * and that session is revoked with the others.
   */
  async endAll(db: Db, tenantId: number, customerId: number, keep?: string): Promise<number> {
    await this.chains.end(db.tenant(tenantId), customerId, null);
    return this.revokeOf(db, tenantId, customerId, { keep });
  }

  /** A refresh chain and every session it made (a logout, a reused refresh token). */
  async endChain(db: Db, tenantId: number, customerId: number, chainId: string): Promise<void> {
    await this.chains.end(db.tenant(tenantId), customerId, chainId);
    await this.revokeOf(db, tenantId, customerId, { chainId });
  }

  /** A logout: the session's refresh chain with every session of it, or the session alone. */
  async logout(db: Db, tenantId: number, customerId: number, sessionId: string): Promise<void> {
    const chainId = await this.sessions.chainOfSession(db.tenant(tenantId), sessionId);
    if (chainId) return this.endChain(db, tenantId, customerId, chainId);
    await this.revokeOne(db, tenantId, sessionId);
  }

  /** One session, its chain left alive (RFC 7009 revocation of a session token). */
  async revokeOne(db: Db, tenantId: number, sessionId: string): Promise<void> {
    const session = await this.sessions.revokeSession(db.tenant(tenantId), sessionId);
    if (!session) return;
    await this.credentials.publish(db, {
      kind: 'session',
      id: sessionId,
      expiresAt: session.expires_at.getTime(),
    });
  }

  private async revokeOf(
    db: Db,
    tenantId: number,
    customerId: number,
    options: { keep?: string; chainId?: string },
  ): Promise<number> {
    const revoked = await this.sessions.revokeSessionsOf(db.tenant(tenantId), customerId, options);
    for (const session of revoked) {
      await this.credentials.publish(db, {
        kind: 'session',
        id: session.id,
        expiresAt: session.expires_at.getTime(),
      });
    }
    return revoked.length;
  }
}

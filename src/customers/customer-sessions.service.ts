import { Injectable } from '@nestjs/common';
import { CredentialsEvents } from '../auth/credentials-events.service.js';
import type { Db } from '../database/sql/db.js';
import { CustomersRepository } from './customers.repository.js';
import { RefreshChainsRepository } from './refresh-chains.repository.js';

/**
 * Ends a customer's sessions through the revocation path of docs/BEHAVIOUR.md#token-lifecycle: the
 * rows are marked revoked and each is announced (CredentialsEvents): this instance refuses those
 * tokens once the change commits, the others within milliseconds of it.
 */
@Injectable()
export class CustomerSessions {
  constructor(
    private readonly customers: CustomersRepository,
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
    return this.revoke(db, tenantId, customerId, { keep });
  }

  /** A refresh chain and every session it made (a logout, a reused refresh token). */
  async endChain(db: Db, tenantId: number, customerId: number, chainId: string): Promise<void> {
    await this.chains.end(db.tenant(tenantId), customerId, chainId);
    await this.revoke(db, tenantId, customerId, { chainId });
  }

  private async revoke(
    db: Db,
    tenantId: number,
    customerId: number,
    options: { keep?: string; chainId?: string },
  ): Promise<number> {
    const revoked = await this.customers.revokeSessionsOf(db.tenant(tenantId), customerId, options);
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

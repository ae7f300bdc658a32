import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { publishCredentialsEvent } from '../auth/credentials-events.js';
import { CustomersRepository } from './customers.repository.js';

/**
 * Ends a customer's sessions through the revocation path of CONTRACT 3.3: the rows are
 * marked revoked and each is announced with a NOTIFY that PostgreSQL delivers at commit, so
 * every instance refuses those tokens within milliseconds of the change committing.
 */
@Injectable()
export class CustomerSessions {
  constructor(private readonly customers: CustomersRepository) {}

  /** Every live session of the customer except `keep`; in the caller's transaction. */
  async endAll(
    m: EntityManager,
    tenantId: number,
    customerId: number,
    keep?: string,
  ): Promise<number> {
    const revoked = await this.customers.revokeSessionsOf(m, tenantId, customerId, keep);
    for (const session of revoked) {
      await publishCredentialsEvent(m, {
        kind: 'session',
        id: session.id,
        expiresAt: session.expires_at.getTime(),
      });
    }
    return revoked.length;
  }
}

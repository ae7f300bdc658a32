import { Injectable } from '@nestjs/common';
import { CredentialsEvents } from '../auth/credentials-events.service.js';
import type { Db } from '../database/sql/db.js';
import { CustomersRepository } from './customers.repository.js';

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
  ) {}

  /** Every live session of the customer except `keep`; in the caller's unit of work. */
  async endAll(db: Db, tenantId: number, customerId: number, keep?: string): Promise<number> {
    const revoked = await this.customers.revokeSessionsOf(db.tenant(tenantId), customerId, keep);
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

import { Injectable, Optional } from '@nestjs/common';
import { Transactions } from '../database/transactions.js';
import type { Db } from '../database/sql/db.js';
import type { CredentialsEvent } from './credentials-events.js';
import { CredentialsNotifyRepository } from './credentials-notify.repository.js';
import { CredentialsState } from './credentials-state.service.js';

/**
 * Announces a change of credentials. NOTIFY inside the caller's transaction: PostgreSQL
 * delivers it at commit, so no instance hears of a change before it is visible, and a
 * rolled-back change is never announced. This process applies it itself right after the
 * commit too: its own NOTIFY can trail the caller's next request by a few milliseconds (a
 * logout answered, then the same session accepted once more).
 */
@Injectable()
export class CredentialsEvents {
  constructor(
    private readonly transactions: Transactions,
    private readonly notifier: CredentialsNotifyRepository,
    // The HTTP server's credentials cache; absent in the CLI and the worker, which cache nothing.
    @Optional() private readonly state?: CredentialsState,
  ) {}

  async publish(db: Db, event: CredentialsEvent): Promise<void> {
    await this.notifier.notify(db.shared(), event);
    const state = this.state;
    if (state) this.transactions.afterCommit(() => state.apply(event));
  }
}

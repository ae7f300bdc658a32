import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';

/** A unit of work: its transaction, open until its work has settled. */
interface Unit {
  manager: EntityManager;
  open: boolean;
}

/**
 * The one way to reach the database. `run` opens a unit of work, or joins the one already
 * open in this async context (an Idempotency-Key opens one around the handler, so the order
 * and the stored response commit together). `manager` is for reads and single statements:
 * the open transaction when there is one, else the pool. Nothing else calls
 * `dataSource.transaction` or keeps an "optional manager, else autocommit" parameter.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<Unit>();

  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in the ambient transaction, or in a new one that it then owns. */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const current = this.current();
    if (current) return work(current);
    return this.dataSource.transaction(async (manager) => {
      const unit: Unit = { manager, open: true };
      try {
        return await this.ambient.run(unit, () => work(manager));
      } finally {
        // Closed before COMMIT or ROLLBACK is sent: nothing may join it from here on.
        unit.open = false;
      }
    });
  }

  /** The open transaction's manager, else the pool's (each statement commits on its own). */
  get manager(): EntityManager {
    return this.current() ?? this.dataSource.manager;
  }

  /**
   * The unit of work of this async context. Work that a unit started and left running past
   * its end (a sibling of a rejected `Promise.all`, a call not awaited) fails here, loudly:
   * falling back to the pool would commit its writes outside the unit, rolled back or not.
   */
  private current(): EntityManager | undefined {
    const unit = this.ambient.getStore();
    if (!unit) return undefined;
    if (!unit.open) throw new QueryRunnerAlreadyReleasedError();
    return unit.manager;
  }
}

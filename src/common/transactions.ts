import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * The one way to reach the database. `run` opens a unit of work, or joins the one already
 * open in this async context (an Idempotency-Key opens one around the handler, so the order
 * and the stored response commit together). `manager` is for reads and single statements:
 * the open transaction when there is one, else the pool. Nothing else calls
 * `dataSource.transaction` or keeps an "optional manager, else autocommit" parameter.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<EntityManager>();
  /** Units of work open in this process. */
  private open = 0;

  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in the ambient transaction, or in a new one that it then owns. */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const current = this.current();
    if (current) return work(current);
    return this.dataSource.transaction(async (manager) => {
      this.open += 1;
      try {
        return await this.ambient.run(manager, () => work(manager));
      } finally {
        // Before Node 24, an enabled AsyncLocalStorage runs a promise hook for every
        // promise of the process (~5 KB and several µs a request). With no unit of work
        // open there is no store to find, so the hooks are switched off until the next
        // `run` switches them on again.
        this.open -= 1;
        if (this.open === 0) this.ambient.disable();
      }
    });
  }

  /** The open transaction's manager, else the pool's (each statement commits on its own). */
  get manager(): EntityManager {
    return this.current() ?? this.dataSource.manager;
  }

  /**
   * The unit of work of this async context while it is open. Work a unit of work started
   * and left running past its end sees none (the pool), never a committed transaction: on
   * Node 20 because the storage is disabled, on Node 24 (whose storage survives `disable`
   * in contexts made before it) because the transaction's runner is released.
   */
  private current(): EntityManager | undefined {
    const store = this.ambient.getStore();
    return store && !store.queryRunner?.isReleased ? store : undefined;
  }
}

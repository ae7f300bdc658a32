import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * One transaction per unit of work, joined by everything that runs inside it. The
 * Idempotency-Key interceptor opens one around the handler, so the order (or import) and
 * the stored response commit together; without it, services open their own.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<EntityManager>();

  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in the ambient transaction, or in a new one that it then owns. */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const current = this.ambient.getStore();
    if (current) return work(current);
    return this.dataSource.transaction((manager) => this.ambient.run(manager, () => work(manager)));
  }
}

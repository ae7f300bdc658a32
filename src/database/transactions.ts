import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Db } from './sql/db.js';

/**
 * Work that a unit of work left running past its end touched the database. A bug of ours,
 * never a lost connection: its own class, so that it stays a loud 500 while TypeORM's
 * "query runner already released" (a connection lost mid-unit) means the database is away.
 */
export class UnitOfWorkEndedError extends Error {
  constructor() {
    super('the unit of work this work belongs to has already ended');
    this.name = 'UnitOfWorkEndedError';
  }
}

/** A unit of work: its transaction, open until its work has settled. */
interface Unit {
  manager: EntityManager;
  db: Db;
  open: boolean;
  /** Run once the transaction has committed (`afterCommit`). */
  committed: Array<() => void>;
}

/**
 * The one way to reach the database. `run` opens a unit of work, or joins the one already
 * open in this async context (an Idempotency-Key opens one around the handler, so the order
 * and the stored response commit together). `db` is for reads and single statements: the
 * open transaction when there is one, else the pool. Nothing else calls
 * `dataSource.transaction` or keeps an "optional manager, else autocommit" parameter.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<Unit>();

  private readonly poolDb: Db;

  constructor(private readonly dataSource: DataSource) {
    this.poolDb = new Db(dataSource.manager);
  }

  /**
   * Runs `work` in the ambient transaction, or in a new one that it then owns. `db` hands out
   * the paths repositories take: `db.tenant(id)`, `db.crossTenant(path)`, `db.shared()`.
   */
  run<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.runUnit((unit) => work(unit.db));
  }

  /** The open unit of work's Db, else one on the pool (each statement commits on its own). */
  get db(): Db {
    return this.openUnit()?.db ?? this.poolDb;
  }

  /**
   * The pool's Db even inside a unit of work: for a statement that must commit on its own
   * whatever becomes of the caller's unit (a rate limiter's counted attempt).
   */
  get pool(): Db {
    return this.poolDb;
  }

  private async runUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    const current = this.openUnit();
    if (current) return work(current);
    let unit: Unit | undefined;
    const result = await this.dataSource.transaction(async (manager) => {
      const opened: Unit = { manager, db: undefined as unknown as Db, open: true, committed: [] };
      opened.db = new Db(manager, () => {
        if (!opened.open) throw new UnitOfWorkEndedError();
      });
      unit = opened;
      try {
        return await this.ambient.run(opened, () => work(opened));
      } finally {
        // Closed before COMMIT or ROLLBACK is sent: nothing may join it from here on.
        opened.open = false;
      }
    });
    for (const effect of unit?.committed ?? []) effect();
    return result;
  }

  /**
   * Runs `effect` once the open unit of work has committed (never if it rolls back), or at
   * once outside one, where the caller's statement has already committed. For effects in
   * this process that must follow what the database now holds; `effect` must not throw.
   */
  afterCommit(effect: () => void): void {
    const unit = this.openUnit();
    if (unit) unit.committed.push(effect);
    else effect();
  }

  /**
   * The unit of work of this async context. Work that a unit started and left running past
   * its end (a sibling of a rejected `Promise.all`, a call not awaited) fails here, loudly:
   * falling back to the pool would commit its writes outside the unit, rolled back or not.
   */
  private openUnit(): Unit | undefined {
    const unit = this.ambient.getStore();
    if (unit && !unit.open) throw new UnitOfWorkEndedError();
    return unit;
  }
}

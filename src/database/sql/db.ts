import type { EntityManager } from 'typeorm';
import type { CrossTenantPath } from './cross-tenant-paths.js';
import { CrossTenantSql } from './cross-tenant-sql.js';
import { SharedSql } from './shared-sql.js';
import { TenantSql } from './tenant-sql.js';

/**
 * A unit of work (or the pool, outside one), as services hold it: opaque, it only hands out
 * the paths a repository takes. A service says whose data a statement is for; the repository
 * says what the statement is.
 */
export class Db {
  readonly #manager: EntityManager;
  readonly #assertOpen: () => void;

  /** `assertOpen` throws once the unit of work has ended (never, for the pool's Db). */
  constructor(manager: EntityManager, assertOpen: () => void = alwaysOpen) {
    this.#manager = manager;
    this.#assertOpen = assertOpen;
  }

  /** See managerOf. */
  static managerOf(db: Db): EntityManager {
    return db.#manager;
  }

  /** The tenant path: every statement bound to `tenantId`. */
  tenant(tenantId: number): TenantSql {
    return new TenantSql(this.#manager, this.#assertOpen, tenantId);
  }

  /** A named, allow-listed path across tenants (cross-tenant-paths.ts). */
  crossTenant(path: CrossTenantPath): CrossTenantSql {
    return new CrossTenantSql(this.#manager, this.#assertOpen, path);
  }

  /** Statements on tables no tenant owns. */
  shared(): SharedSql {
    return new SharedSql(this.#manager, this.#assertOpen);
  }
}

/**
 * The TypeORM manager behind a unit, for the infrastructure that needs a driver-level handle
 * in the same transaction (pg-boss's `insert` with `db`). Never for tenant data.
 */
export function managerOf(db: Db): EntityManager {
  return Db.managerOf(db);
}

function alwaysOpen(): void {}

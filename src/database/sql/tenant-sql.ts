import type { EntityManager } from 'typeorm';
import { SqlRunner } from './sql-runner.js';
import { TENANT_MARK } from './statement-marks.js';

/** A tenant path asked for without a real tenant, or a statement that never uses it. */
export class TenantScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TenantScopeError';
  }
}

/** `$1` as a parameter of its own, not the start of `$10`. */
const USES_TENANT = /\$1(?!\d)/;

/**
 * Marked texts of prepared statements, checked once each: their texts are fixed by the code,
 * so the map stays small, and the same marked string is what names the statement
 * (execute.ts), hashed once rather than rebuilt and rehashed per run.
 */
const MARKED = new Map<string, string>();

/**
 * The tenant path: the only way a repository reaches tenant data. It is bound to one unit of
 * work and one tenant, and binds the tenant itself as `$1` of every statement (the caller's
 * values follow as `$2`, `$3`…). A statement that never uses `$1` is refused: whatever it
 * reads or writes would not be limited to the tenant. Marked, so the statement audit lets it
 * name tenant tables.
 */
export class TenantSql extends SqlRunner {
  constructor(
    manager: EntityManager,
    assertOpen: () => void,
    readonly tenantId: number,
  ) {
    super(manager, assertOpen);
    if (!Number.isSafeInteger(tenantId) || tenantId < 1) {
      throw new TenantScopeError(
        `refusing the tenant path without a tenant (got ${String(tenantId)})`,
      );
    }
  }

  protected statement(text: string, values: readonly unknown[], prepared: boolean) {
    let marked = prepared ? MARKED.get(text) : undefined;
    if (marked === undefined) {
      if (!USES_TENANT.test(text)) {
        throw new TenantScopeError('refusing a tenant statement that does not use its tenant ($1)');
      }
      marked = TENANT_MARK + text;
      if (prepared) MARKED.set(text, marked);
    }
    return { text: marked, values: [this.tenantId, ...values] };
  }
}

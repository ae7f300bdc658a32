import type { EntityManager } from 'typeorm';
import { type CrossTenantPath, CROSS_TENANT_PATHS } from './cross-tenant-paths.js';
import { SqlRunner } from './sql-runner.js';
import { CROSS_TENANT_MARK } from './statement-marks.js';

/**
 * A named path for statements that deliberately span tenants (cross-tenant-paths.ts says which
 * and why). Its statements carry the path's name, so the audit lets them name tenant tables and
 * pg_stat_statements shows which path ran them.
 */
export class CrossTenantSql extends SqlRunner {
  private readonly mark: string;

  constructor(
    manager: EntityManager,
    assertOpen: () => void,
    readonly path: CrossTenantPath,
  ) {
    super(manager, assertOpen);
    if (!Object.hasOwn(CROSS_TENANT_PATHS, path)) {
      throw new Error(`"${path}" is not an allow-listed cross-tenant path`);
    }
    this.mark = `${CROSS_TENANT_MARK}${path} */ `;
  }

  protected statement(text: string, values: readonly unknown[]) {
    return { text: this.mark + text, values };
  }
}

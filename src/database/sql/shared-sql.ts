import { SqlRunner } from './sql-runner.js';
import { CROSS_TENANT_MARK, TENANT_MARK } from './statement-marks.js';

/**
 * Statements on what no tenant owns: the tenants themselves, signing keys, service settings,
 * rate-limit counters. Unmarked: the statement audit refuses one that names a tenant table.
 */
export class SharedSql extends SqlRunner {
  protected statement(text: string, values: readonly unknown[]) {
    // A path's mark written by hand would pass the audit: only the paths may write one.
    if (text.startsWith(TENANT_MARK) || text.startsWith(CROSS_TENANT_MARK)) {
      throw new Error('a shared statement may not carry a tenant or cross-tenant mark');
    }
    return { text, values };
  }
}

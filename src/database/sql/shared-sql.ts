import { SqlRunner } from './sql-runner.js';

/**
 * Statements on what no tenant owns: the tenants themselves, signing keys, service settings,
 * rate-limit counters. Unmarked: the statement audit refuses one that names a tenant table.
 */
export class SharedSql extends SqlRunner {
  protected statement(text: string, values: readonly unknown[]) {
    return { text, values };
  }
}

import { CROSS_TENANT_MARK, TENANT_MARK } from './statement-marks.js';
import { TENANT_TABLES } from './tenant-tables.js';

/** A statement named a tenant table without going through the tenant or a cross-tenant path. */
export class UnscopedStatementError extends Error {
  /** `table`: the tenant table named, or what else made the statement unauditable. */
  constructor(readonly table: string) {
    super(
      `refused a statement on ${/^[a-z_]+$/.test(table) ? `the tenant table "${table}"` : table} ` +
        'that did not go through the tenant path (TenantSql) or a named cross-tenant path ' +
        '(CrossTenantSql)',
    );
    this.name = 'UnscopedStatementError';
  }
}

/**
 * A tenant table's name as a whole word, unquoted or double-quoted, alone or qualified by the
 * `public` schema, not part of a longer identifier (`orders` in `orders_pkey` or `x.orders`
 * does not count).
 */
const TENANT_TABLE = new RegExp(
  `(?<![\\w$.])(?:"?public"?\\s*\\.\\s*)?"?(${TENANT_TABLES.join('|')})"?(?![\\w$])`,
  'i',
);

/** A Unicode-escaped identifier (`U&"\\006Frders"`) could spell a tenant table unseen. */
const ESCAPED_IDENTIFIER = /U&"/i;

/**
 * The table an unmarked statement names, if it names one that belongs to tenants. Marked
 * statements pass at the cost of a prefix test; the rest are few (transaction control, the
 * queue's own statements, shared tables) and short.
 */
export function unscopedTable(text: string): string | undefined {
  if (text.startsWith(TENANT_MARK) || text.startsWith(CROSS_TENANT_MARK)) return undefined;
  if (ESCAPED_IDENTIFIER.test(text)) return 'a Unicode-escaped identifier';
  return TENANT_TABLE.exec(text)?.[1];
}

/** Throws when `text` names a tenant table without a path's mark. */
export function auditStatement(text: string): void {
  const table = unscopedTable(text);
  if (table !== undefined) throw new UnscopedStatementError(table.toLowerCase());
}

/** Connections whose statements are not audited while they run migrations (DDL names tables). */
const exempt = new WeakSet<object>();

/** True when `client` was not exempt before (so the caller's to end). */
export function exemptFromAudit(client: object): boolean {
  if (exempt.has(client)) return false;
  exempt.add(client);
  return true;
}

export function endAuditExemption(client: object): void {
  exempt.delete(client);
}

/**
 * The error to fail a query with on `client`, if the audit refuses it. A query without text
 * (a prepared statement run by name alone) is refused: its text could not be audited, and
 * the paths always send the text with the name.
 */
export function auditFailure(client: object, query: unknown): UnscopedStatementError | undefined {
  if (exempt.has(client)) return undefined;
  const text = typeof query === 'string' ? query : (query as { text?: unknown } | null)?.text;
  if (typeof text !== 'string') {
    return typeof query === 'object' && query !== null && 'name' in query
      ? new UnscopedStatementError('a prepared statement sent by name without its text')
      : undefined;
  }
  const table = unscopedTable(text);
  return table === undefined ? undefined : new UnscopedStatementError(table.toLowerCase());
}

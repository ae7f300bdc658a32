/**
 * The statements that deliberately span tenants, each by name with the reason it must. Adding
 * one is a reviewed change of this file; a test fails when a listed path is no longer used.
 * Everything else that touches tenant data goes through TenantSql.
 */
export const CROSS_TENANT_PATHS = {
  'order-counts-compaction':
    'The order counters’ compactor folds the pending deltas of every tenant into their counts ' +
    'in bounded batches, one compactor at a time in the cluster: it serves no tenant and ' +
    'must let no tenant’s deltas pile up.',
  'seed-table-maintenance':
    '`seed orders` ends with VACUUM (ANALYZE) of the tables it filled: table maintenance and ' +
    'planner statistics cover every row of a table, whatever its tenant, and cannot be limited ' +
    'to one.',
} as const satisfies Record<string, string>;

export type CrossTenantPath = keyof typeof CROSS_TENANT_PATHS;

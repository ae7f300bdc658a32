/**
 * The statements that deliberately span tenants, each by name with the reason it must. Adding
 * one is a reviewed change of this file; a test fails when a listed path is no longer used.
 * Everything else that touches tenant data goes through TenantSql.
 */
export const CROSS_TENANT_PATHS = {
  credentials:
    'A client_id or a token id names its app before its tenant is known (the token endpoint ' +
    'and the admin CLI, through the client directory or a jti), and every instance loads the ' +
    'credentials state of all tenants (revoked tokens and sessions) into its cache.',
  'webhook-dispatch':
    "The webhook dispatcher follows one event log of every tenant in commit order: each batch makes the deliveries of every tenant it holds and locks and wakes those tenants' delivery lines in the same unit.",
  'webhook-recovery':
    'The periodic webhook recovery finds, in every tenant, the deliveries nobody will send (a lapsed lease, a lost job) and the tenants with deliveries in line, to wake each tenant on its own.',
  'client-directory-backfill':
    'Maintenance enters into the client directory every app missing from it, of any tenant: ' +
    'apps made by a process of the previous release during a rolling deploy, which knew no ' +
    'directory.',
  'expired-rows-purge':
    'Maintenance deletes the expired Idempotency-Keys, app tokens, customer sessions and tickets of every tenant, one statement per table, once per cluster.',
  'event-retention':
    "Maintenance deletes the events of every tenant older than the retention and records each tenant's last purged position (the feed's 410 cursor_expired), in bounded batches.",
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

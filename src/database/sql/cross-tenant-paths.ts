/**
 * The statements that deliberately span tenants, each by name with the reason it must. Adding
 * one is a reviewed change of this file; a test fails when a listed path is no longer used.
 * Everything else that touches tenant data goes through TenantSql.
 */
export const CROSS_TENANT_PATHS = {
  credentials:
    'A client_id or a token id names its app before its tenant is known (the token endpoint, ' +
    'the admin CLI, a revocation check), and every instance loads the credentials state of ' +
    'all tenants (revoked tokens and sessions) into its cache.',
} as const satisfies Record<string, string>;

export type CrossTenantPath = keyof typeof CROSS_TENANT_PATHS;

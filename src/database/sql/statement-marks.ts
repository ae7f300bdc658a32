/**
 * The comments that open a statement sent through one of the two paths allowed to name a
 * tenant table. Only tenant-sql.ts and cross-tenant-sql.ts write them (a test checks that no
 * other file spells them), so the audit's "marked" means "went through that path".
 */
export const TENANT_MARK = '/* tenant */ ';
export const CROSS_TENANT_MARK = '/* cross-tenant:';

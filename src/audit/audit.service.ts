import { Injectable } from '@nestjs/common';
import { currentAdmin } from '../common/admin-context.js';
import { Transactions } from '../common/transactions.js';
import { legacyTenantSql } from '../database/sql/db.js';
import { AuditRepository, type AuditEvent } from './audit.repository.js';

/**
 * @deprecated Transitional: callers move to AuditRepository.record with their unit's tenant
 * path and the AdminContext they were given.
 */
@Injectable()
export class AuditService {
  constructor(
    private readonly transactions: Transactions,
    private readonly audit: AuditRepository,
  ) {}

  /** Writes in the caller's transaction (Transactions.run), so it commits with the change. */
  async record(event: AuditEvent & { tenantId: number }): Promise<void> {
    const { tenantId, ...rest } = event;
    await this.audit.record(
      legacyTenantSql(this.transactions.legacyManager, tenantId),
      currentAdmin(),
      rest,
    );
  }
}

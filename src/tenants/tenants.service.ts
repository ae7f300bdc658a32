import { Injectable } from '@nestjs/common';
import { Transactions } from '../common/transactions.js';
import { AuditService } from '../audit/audit.service.js';
import { AppError } from '../common/errors/app-error.js';
import { isCurrencyCode } from '../common/currency.js';
import { Tenant } from './tenant.entity.js';
import { hasCharLength } from '../common/char-length.js';

@Injectable()
export class TenantsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly audit: AuditService,
  ) {}

  /** Joins the caller's transaction when there is one. */
  async create(input: { name: string; currency: string }): Promise<Tenant> {
    const name = input.name.trim();
    const currency = input.currency.trim().toUpperCase();
    if (!hasCharLength(name, 1, 200)) {
      throw new AppError('validation_failed', 'name must be 1 to 200 characters');
    }
    if (!isCurrencyCode(currency)) {
      throw new AppError(
        'validation_failed',
        `currency must be an ISO 4217 code, got "${input.currency}"`,
      );
    }
    return this.transactions.runWithManager(async (tx) => {
      const tenant = await tx.save(tx.create(Tenant, { name, currency }));
      await this.audit.record({
        tenantId: tenant.id,
        action: 'tenant.create',
        targetType: 'tenant',
        targetId: tenant.id,
        details: { name, currency },
      });
      return tenant;
    });
  }

  list(): Promise<Tenant[]> {
    return this.transactions.legacyManager.find(Tenant, { order: { id: 'ASC' } });
  }

  /** The tenant or 404-style not_found; ids are positive integers. */
  async get(id: number): Promise<Tenant> {
    const tenant =
      Number.isSafeInteger(id) && id > 0
        ? await this.transactions.legacyManager.findOneBy(Tenant, { id })
        : null;
    if (!tenant) throw new AppError('not_found', `tenant ${id} does not exist`);
    return tenant;
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { AppError } from '../common/errors/app-error.js';
import { isCurrencyCode } from '../common/currency.js';
import { Tenant } from './tenant.entity.js';
import { hasCharLength } from '../common/char-length.js';

@Injectable()
export class TenantsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async create(
    input: { name: string; currency: string },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Tenant> {
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
    return manager.transaction(async (tx) => {
      const tenant = await tx.save(tx.create(Tenant, { name, currency }));
      await this.audit.record(
        {
          tenantId: tenant.id,
          action: 'tenant.create',
          targetType: 'tenant',
          targetId: tenant.id,
          details: { name, currency },
        },
        tx,
      );
      return tenant;
    });
  }

  list(): Promise<Tenant[]> {
    return this.dataSource.getRepository(Tenant).find({ order: { id: 'ASC' } });
  }

  /** The tenant or 404-style not_found; ids are positive integers. */
  async get(id: number, manager: EntityManager = this.dataSource.manager): Promise<Tenant> {
    const tenant =
      Number.isSafeInteger(id) && id > 0 ? await manager.findOneBy(Tenant, { id }) : null;
    if (!tenant) throw new AppError('not_found', `tenant ${id} does not exist`);
    return tenant;
  }
}

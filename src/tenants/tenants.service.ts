import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import type { AdminContext } from '../common/admin-context.js';
import { hasCharLength } from '../common/char-length.js';
import { isCurrencyCode } from '../common/currency.js';
import { AppError } from '../common/errors/app-error.js';
import { LruMap } from '../common/lru-map.js';
import { Transactions } from '../database/transactions.js';
import type { Db } from '../database/sql/db.js';
import { type TenantRow, TenantsRepository } from './tenants.repository.js';

/** Tenants whose currency a process keeps at hand (a few bytes each). */
const CURRENCIES_KEPT = 10_000;

@Injectable()
export class TenantsService {
  /** A tenant's currency never changes (nothing writes it after creation): kept once read. */
  private readonly currencies = new LruMap<number, string>(CURRENCIES_KEPT);

  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsRepository,
    private readonly audit: AuditRepository,
  ) {}

  /** The tenant and its audit row in one unit; joins the caller's when there is one. */
  async create(admin: AdminContext, input: { name: string; currency: string }): Promise<TenantRow> {
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
    return this.transactions.run(async (db) => {
      const tenant = await this.tenants.insert(db.shared(), { name, currency });
      await this.audit.record(db.tenant(tenant.id), admin, {
        action: 'tenant.create',
        targetType: 'tenant',
        targetId: tenant.id,
        details: { name, currency },
      });
      return tenant;
    });
  }

  list(_admin: AdminContext): Promise<TenantRow[]> {
    return this.tenants.list(this.transactions.db.shared());
  }

  /** The tenant's currency (ISO 4217), which its amounts are checked and written in. */
  async currencyOf(tenantId: number): Promise<string> {
    const known = this.currencies.get(tenantId);
    if (known !== undefined) return known;
    const { currency } = await this.get(tenantId);
    this.currencies.set(tenantId, currency);
    return currency;
  }

  /**
   * The tenant or not_found; ids are positive integers. In `db`'s unit when given (a change
   * about to write for the tenant), else on the open unit or the pool.
   */
  async get(id: number, db: Db = this.transactions.db): Promise<TenantRow> {
    const tenant =
      Number.isSafeInteger(id) && id > 0 ? await this.tenants.find(db.shared(), id) : undefined;
    if (!tenant) throw new AppError('not_found', `tenant ${id} does not exist`);
    return tenant;
  }
}

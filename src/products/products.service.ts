import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import type { RequestContext } from '../auth/request-context.js';
import type { AdminContext } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import type { PageQuery } from '../common/pagination.js';
import { Transactions } from '../database/transactions.js';
import { TenantsService } from '../tenants/tenants.service.js';
import type { ProductInput } from './product-input.js';
import { type ProductRow, ProductsRepository } from './products.repository.js';

export interface ImportResult {
  inserted: number;
  updated: number;
}

const IMPORT_BATCH = 1000;

@Injectable()
export class ProductsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
    private readonly products: ProductsRepository,
    private readonly audit: AuditRepository,
  ) {}

  /** The caller's catalog, a page at a time. */
  page(ctx: RequestContext, query: PageQuery): Promise<{ rows: ProductRow[]; total: number }> {
    return this.products.page(this.transactions.db.tenant(ctx.tenantId), query);
  }

  find(ctx: RequestContext, id: number): Promise<ProductRow | undefined> {
    return this.products.find(this.transactions.db.tenant(ctx.tenantId), id);
  }

  async create(admin: AdminContext, tenantId: number, input: ProductInput): Promise<ProductRow> {
    await this.tenants.get(tenantId);
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const product = await this.products.insert(tenant, input);
      if (!product) {
        throw new AppError(
          'validation_failed',
          `sku "${input.sku}" already exists in tenant ${tenantId}`,
        );
      }
      await this.audit.record(tenant, admin, {
        action: 'product.create',
        targetType: 'product',
        targetId: product.id,
        details: { sku: product.sku },
      });
      return product;
    });
  }

  /**
   * Upserts by sku in one unit of work (all or nothing), in batches of one statement each.
   * `onProgress` is told after every batch.
   */
  async importMany(
    admin: AdminContext,
    tenantId: number,
    rows: ProductInput[],
    options: { hasActiveColumn: boolean; onProgress?: (done: number) => void },
  ): Promise<ImportResult> {
    await this.tenants.get(tenantId);
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const result: ImportResult = { inserted: 0, updated: 0 };
      for (let start = 0; start < rows.length; start += IMPORT_BATCH) {
        const batch = rows.slice(start, start + IMPORT_BATCH);
        const written = await this.products.upsert(tenant, batch, options.hasActiveColumn);
        const inserted = written.filter((w) => w.inserted).length;
        result.inserted += inserted;
        result.updated += written.length - inserted;
        options.onProgress?.(start + batch.length);
      }
      await this.audit.record(tenant, admin, {
        action: 'product.import',
        targetType: 'tenant',
        targetId: tenantId,
        details: { ...result },
      });
      return result;
    });
  }
}

import { Injectable } from '@nestjs/common';
import { Transactions } from '../common/transactions.js';
import { AuditService } from '../audit/audit.service.js';
import { AppError } from '../common/errors/app-error.js';
import { TenantsService } from '../tenants/tenants.service.js';
import type { ProductInput } from './product-input.js';
import { Product } from './product.entity.js';

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
    private readonly audit: AuditService,
  ) {}

  async create(tenantId: number, input: ProductInput): Promise<Product> {
    await this.tenants.get(tenantId);
    return this.transactions.runWithManager(async (tx) => {
      const result = await tx
        .createQueryBuilder()
        .insert()
        .into(Product)
        .values({
          tenantId,
          sku: input.sku,
          name: input.name,
          priceMinor: input.priceMinor,
          active: input.active ?? true,
        })
        .orIgnore()
        .returning('*')
        .execute();
      const created = result.generatedMaps[0] as Product | undefined;
      if (!created?.id)
        throw new AppError(
          'validation_failed',
          `sku "${input.sku}" already exists in tenant ${tenantId}`,
        );
      const product = await tx.findOneByOrFail(Product, { tenantId, id: created.id });
      await this.audit.record({
        tenantId,
        action: 'product.create',
        targetType: 'product',
        targetId: product.id,
        details: { sku: product.sku },
      });
      return product;
    });
  }

  /**
   * Upserts by sku in one transaction (all or nothing), in batches of one statement each.
   * `onProgress` is told after every batch.
   */
  async importMany(
    tenantId: number,
    rows: ProductInput[],
    options: { hasActiveColumn: boolean; onProgress?: (done: number) => void },
  ): Promise<ImportResult> {
    await this.tenants.get(tenantId);
    return this.transactions.runWithManager(async (tx) => {
      const result: ImportResult = { inserted: 0, updated: 0 };
      for (let start = 0; start < rows.length; start += IMPORT_BATCH) {
        const batch = rows.slice(start, start + IMPORT_BATCH);
        const written: Array<{ inserted: boolean }> = await tx.query(
          `INSERT INTO products (tenant_id, sku, name, price_minor, active)
           SELECT $1, v.sku, v.name, v.price, COALESCE(v.active, true)
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[]) AS v(sku, name, price, active)
           ON CONFLICT (tenant_id, sku) DO UPDATE SET
             name = EXCLUDED.name,
             price_minor = EXCLUDED.price_minor,
             active = CASE WHEN $6 THEN EXCLUDED.active ELSE products.active END,
             updated_at = now()
           RETURNING (xmax = 0) AS inserted`,
          [
            tenantId,
            batch.map((r) => r.sku),
            batch.map((r) => r.name),
            batch.map((r) => r.priceMinor),
            batch.map((r) => r.active ?? null),
            options.hasActiveColumn,
          ],
        );
        const inserted = written.filter((w) => w.inserted).length;
        result.inserted += inserted;
        result.updated += written.length - inserted;
        options.onProgress?.(start + batch.length);
      }
      await this.audit.record({
        tenantId,
        action: 'product.import',
        targetType: 'tenant',
        targetId: tenantId,
        details: { ...result },
      });
      return result;
    });
  }
}

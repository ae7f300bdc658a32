import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { offsetOf, type PageQuery } from '../common/pagination.js';
import { requireTenant } from '../common/tenant-scope.js';

export interface ProductRow {
  id: number;
  sku: string;
  name: string;
  price_minor: number;
  currency: string;
  active: boolean;
}

const COLUMNS = `p.id, p.sku, p.name, p.price_minor, t.currency, p.active`;

/** Catalog reads; every query is bound to one tenant. */
@Injectable()
export class ProductsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async page(tenantId: number, query: PageQuery): Promise<{ rows: ProductRow[]; total: number }> {
    requireTenant(tenantId);
    // One after the other: an expensive request holds one connection at a time (the caps
    // on expensive requests count a place as a connection).
    const rows = await this.dataSource.query<ProductRow[]>(
      `SELECT ${COLUMNS} FROM products p JOIN tenants t ON t.id = p.tenant_id
       WHERE p.tenant_id = $1 ORDER BY p.id LIMIT $2 OFFSET $3`,
      [tenantId, query.limit, offsetOf(query)],
    );
    const count = await this.dataSource.query<Array<{ total: number }>>(
      'SELECT count(*)::int AS total FROM products WHERE tenant_id = $1',
      [tenantId],
    );
    return { rows, total: count[0].total };
  }

  async find(tenantId: number, id: number): Promise<ProductRow | undefined> {
    requireTenant(tenantId);
    const rows = await this.dataSource.query<ProductRow[]>(
      `SELECT ${COLUMNS} FROM products p JOIN tenants t ON t.id = p.tenant_id
       WHERE p.tenant_id = $1 AND p.id = $2`,
      [tenantId, id],
    );
    return rows[0];
  }
}

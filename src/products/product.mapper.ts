import { renderAmount } from '../common/money.js';
import type { ProductDto } from './dto/product.dto.js';
import type { ProductRow } from './products.repository.js';

export function toProductDto(row: ProductRow): ProductDto {
  return {
    id: row.id,
    sku: row.sku,
    name: row.name,
    price: renderAmount(row.price_minor, row.currency),
    currency: row.currency,
    active: row.active,
    inventory: { tracked: row.inventory_tracked, available: row.available },
    version: row.version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

import type { ImportStatusDto } from './dto/import-order.dto.js';
import type { ImportRow } from './imports.repository.js';

export function toStatusDto(row: ImportRow): ImportStatusDto {
  return {
    status: row.status,
    marketplace: row.marketplace,
    external_order_id: row.external_order_id,
    order_id: row.order_id,
    error: row.error,
    attempts: row.attempts,
  };
}

import { InitialSchema1763800000000 } from './1763800000000-initial-schema.js';
import { IdempotencyResponseHeaders1763900000000 } from './1763900000000-idempotency-response-headers.js';
import { RateLimits1764000000000 } from './1764000000000-rate-limits.js';
import { ExpiryIndexes1764000000001 } from './1764000000001-expiry-indexes.js';
import { ServiceSettings1764000000002 } from './1764000000002-service-settings.js';
import { CustomerTickets1764100000000 } from './1764100000000-customer-tickets.js';
import { Events1764200000000 } from './1764200000000-events.js';
import { OrderSyncIndexes1764200000001 } from './1764200000001-order-sync-indexes.js';
import { Webhooks1764200000002 } from './1764200000002-webhooks.js';
import { OrderCounts1764300000000 } from './1764300000000-order-counts.js';
import { OrderCountTriggers1764300000001 } from './1764300000001-order-count-triggers.js';
import { WebhookDeliverySlots1765000000030 } from './1765000000030-webhook-delivery-slots.js';
import { OrderListCoveringIndexes1765000000050 } from './1765000000050-order-list-covering-indexes.js';
import { DemoSeededMarker1765100000000 } from './1765100000000-demo-seeded-marker.js';
import { OrderOperations1766000000000 } from './1766000000000-order-operations.js';
import { OrderOperationsBackfill1766000000001 } from './1766000000001-order-operations-backfill.js';
import { ProductInventory1767000000000 } from './1767000000000-product-inventory.js';
import { ProductInventoryIndexes1767000000001 } from './1767000000001-product-inventory-indexes.js';
import { CustomerRefreshChains1768000000000 } from './1768000000000-customer-refresh-chains.js';
import { CustomerErasure1769000000000 } from './1769000000000-customer-erasure.js';
import { CustomerErasureChecks1769000000001 } from './1769000000001-customer-erasure-checks.js';
import { ErasureImportIndexes1769000000002 } from './1769000000002-erasure-import-indexes.js';
import { TicketTokenPerTenant1770000000000 } from './1770000000000-ticket-token-per-tenant.js';
import { TenantKeys1770000000001 } from './1770000000001-tenant-keys.js';
import { ImportFairQueue1770000000002 } from './1770000000002-import-fair-queue.js';
import { DatabaseId1770000000003 } from './1770000000003-database-id.js';
import { IdempotencyOrderIds1770100000000 } from './1770100000000-idempotency-order-ids.js';
import { EventSizes1771000000000 } from './1771000000000-event-sizes.js';
import { CurrencyMinorUnits1771000000300 } from './1771000000300-currency-minor-units.js';
import { OrderFilterKeysPartialIndexes1772000000000 } from './1772000000000-order-filter-keys-partial-indexes.js';

/** In order. Listed explicitly: globs do not survive bundlers or ESM loaders. */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  IdempotencyResponseHeaders1763900000000,
  RateLimits1764000000000,
  ExpiryIndexes1764000000001,
  ServiceSettings1764000000002,
  CustomerTickets1764100000000,
  Events1764200000000,
  OrderSyncIndexes1764200000001,
  Webhooks1764200000002,
  OrderCounts1764300000000,
  OrderCountTriggers1764300000001,
  WebhookDeliverySlots1765000000030,
  OrderListCoveringIndexes1765000000050,
  DemoSeededMarker1765100000000,
  OrderOperations1766000000000,
  OrderOperationsBackfill1766000000001,
  ProductInventory1767000000000,
  ProductInventoryIndexes1767000000001,
  CustomerRefreshChains1768000000000,
  CustomerErasure1769000000000,
  CustomerErasureChecks1769000000001,
  ErasureImportIndexes1769000000002,
  TicketTokenPerTenant1770000000000,
  TenantKeys1770000000001,
  ImportFairQueue1770000000002,
  DatabaseId1770000000003,
  IdempotencyOrderIds1770100000000,
  EventSizes1771000000000,
  CurrencyMinorUnits1771000000300,
  OrderFilterKeysPartialIndexes1772000000000,
];

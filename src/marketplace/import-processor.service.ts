import { Injectable } from '@nestjs/common';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { AppError } from '../common/errors/app-error.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { OrderCatalogRepository } from '../orders/order-catalog.repository.js';
import { orderDraft } from '../orders/order-draft.js';
import { OrderWriter } from '../orders/order-writer.js';
import { OrdersRepository } from '../orders/orders.repository.js';
import { stockDelta } from '../orders/order-stock.js';
import { inventoryChanged } from '../products/product-events.js';
import { StockRepository } from '../products/stock.repository.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { importLineAmounts } from './import-amounts.js';
import { toStatusDto } from './import-status.mapper.js';
import type { ImportOrderDto } from './dto/import-order.dto.js';
import type { ImportJob } from './import-job.js';
import { ImportsRepository } from './imports.repository.js';

/**
 * One attempt at an import. The order, its lines and the `imported` mark commit together, and
 * the order's unique (tenant, marketplace, external_order_id) makes a second order impossible
 * even when a job runs twice (a crash after commit, before pg-boss heard of it).
 */
@Injectable()
export class ImportProcessor {
  constructor(
    private readonly transactions: BackgroundTransactions,
    private readonly imports: ImportsRepository,
    private readonly writer: OrderWriter,
    private readonly orders: OrdersRepository,
    private readonly catalog: OrderCatalogRepository,
    private readonly events: OutboxRepository,
    private readonly stock: StockRepository,
    private readonly tenants: TenantsService,
  ) {}

  /** True when this attempt imported the order; false when there was nothing left to do. */
  async process(job: ImportJob): Promise<boolean> {
    // Its own short transaction, so that status readers see `processing` meanwhile.
    const started = await this.imports.startAttempt(
      this.transactions.db.tenant(job.tenantId),
      job.importId,
    );
    if (!started) return false; // imported or failed already

    return this.transactions.run(async (db) => {
      const tenant = db.tenant(job.tenantId);
      const row = await this.imports.lock(tenant, job.importId);
      if (!row || row.status === 'imported') return false;
      const { marketplace, external_order_id: externalOrderId } = row.payload;
      const orderId =
        (await this.orders.idByExternalId(tenant, marketplace, externalOrderId)) ??
        (await this.createOrder(
          tenant,
          row.payload,
          row.app_id,
          await this.tenants.currencyOf(job.tenantId),
        ));
      await this.imports.markImported(tenant, job.importId, orderId);
      return true;
    });
  }

  /** The last failure also writes `marketplace_import.failed`, in the same transaction. */
  async recordFailure(job: ImportJob, error: unknown, final: boolean): Promise<void> {
    const reason = publicReason(error);
    await this.transactions.run(async (db) => {
      const tenant = db.tenant(job.tenantId);
      const row = await this.imports.markAttemptFailed(tenant, job.importId, reason, final);
      if (!row || !final) return;
      await this.events.append(tenant, [
        {
          type: 'marketplace_import.failed',
          data: { object: toStatusDto(row) },
        },
      ]);
    });
  }

  /**
   * Payload prices and names, tenant currency, pending; customer by id or email; each line's
   * product by its `product_id` when the tenant has it, else by sku. The order takes the
   * stock of its tracked products, below zero if need be: it was sold elsewhere already.
   */
  private async createOrder(
    tenant: TenantSql,
    p: ImportOrderDto,
    appId: number | null,
    currency: string,
  ): Promise<number> {
    // Checked when it was sent; an import queued before a rule existed fails with its reason.
    const amounts = importLineAmounts(p.items, currency);
    const catalog = await this.catalog.productsByIdOrSku(
      tenant,
      p.items.flatMap((i) => (i.product_id === undefined ? [] : [i.product_id])),
      p.items.map((i) => i.sku),
    );
    const productIds = p.items.map((item) =>
      item.product_id !== undefined && catalog.ids.has(item.product_id)
        ? item.product_id
        : (catalog.bySku.get(item.sku) ?? null),
    );
    const moves = await this.stock.force(
      tenant,
      stockDelta(p.items.map((item, i) => ({ productId: productIds[i], quantity: item.quantity }))),
    );
    const held = new Set(moves.map((m) => m.product.id));
    const draft = orderDraft({
      customer: p.customer,
      shipping: p.shipping_address,
      lines: p.items.map((item, i) => ({
        productId: productIds[i],
        sku: item.sku,
        name: item.name,
        quantity: item.quantity,
        unitPriceMinor: amounts[i].unitPriceMinor,
        stockHeld: productIds[i] !== null && held.has(productIds[i]) ? item.quantity : 0,
      })),
      origin: {
        source: 'marketplace',
        marketplace: p.marketplace,
        externalOrderId: p.external_order_id,
      },
      appId,
    });
    const order = await this.writer.write(tenant, draft, (written) =>
      inventoryChanged(moves, 'import', { orderId: written.id }),
    );
    return order.id;
  }
}

/**
 * What the import's status document may say about a failure: clients read it. A message
 * raised on purpose (an AppError, or RAISE EXCEPTION in a trigger, SQLSTATE P0001) is meant
 * for people; any other database message can name internals or quote row values, so it is
 * reduced to its SQLSTATE. The full cause goes to the log (safe-error.ts).
 */
export function publicReason(error: unknown): string {
  if (error instanceof AppError) return error.description;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'P0001' && error instanceof Error) return error.message;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return `the order could not be written (database error ${code})`;
  }
  return 'the order could not be written (internal error)';
}

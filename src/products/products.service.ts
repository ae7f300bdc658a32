import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import type { AppContext, RequestContext } from '../auth/request-context.js';
import type { AdminContext } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import {
  preconditionFailed,
  preconditionHolds,
  type VersionPrecondition,
} from '../common/http/entity-tags.js';
import { requireAmounts } from '../common/money.js';
import { ReadReplicas } from '../database/read-replicas.service.js';
import { Transactions } from '../database/transactions.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { OutboxRepository, type NewEvent } from '../outbox/outbox.repository.js';
import { TenantsService } from '../tenants/tenants.service.js';
import type { InventoryChangeDto, PatchProductDto } from './dto/product-input.dto.js';
import {
  changedFields,
  inventoryChanged,
  productCreated,
  productUpdated,
} from './product-events.js';
import type { ProductInput } from './product-input.js';
import type { ProductListSpec } from './product-list.js';
import { type ProductRow, ProductsRepository } from './products.repository.js';

export interface ImportResult {
  inserted: number;
  updated: number;
  unchanged: number;
}

const IMPORT_BATCH = 1000;

/**
 * The API keeps `available` within ±10^12 (the column allows ±10^15): imports and give-backs,
 * which are never refused, have the rest.
 */
const AVAILABLE_LIMIT = 1_000_000_000_000;

/**
 * The tenant's catalog (docs/BEHAVIOUR.md#products-and-stock): reads, and every change of a
 * product with its event in one unit of work (joining the Idempotency-Key's, where there is
 * one). Changes of one product run one at a time on its locked row.
 */
@Injectable()
export class ProductsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly tenants: TenantsService,
    private readonly products: ProductsRepository,
    private readonly replicas: ReadReplicas,
    private readonly events: OutboxRepository,
    private readonly audit: AuditRepository,
  ) {}

  /** A list page by id; `count` also counts every match (page mode). */
  list(
    ctx: RequestContext,
    spec: ProductListSpec,
    count: boolean,
  ): Promise<{ rows: ProductRow[]; total?: number }> {
    // A replica may serve it (CONTRACT 8).
    return this.replicas.read((db) => this.products.list(db.tenant(ctx.tenantId), spec, count));
  }

  find(ctx: RequestContext, id: number): Promise<ProductRow | undefined> {
    return this.products.find(this.transactions.db.tenant(ctx.tenantId), id);
  }

  /**
   * A new product through the API, its price checked against the tenant's currency; a taken
   * sku is 409 `sku_taken`.
   */
  async create(
    ctx: AppContext,
    input: Omit<ProductInput, 'priceMinor'> & { price: number },
  ): Promise<ProductRow> {
    const { price, ...rest } = input;
    const currency = await this.tenants.currencyOf(ctx.tenantId);
    const [priceMinor] = requireAmounts(currency, [{ field: 'price', value: price }]);
    return this.transactions.run((db) =>
      this.insert(db.tenant(ctx.tenantId), { ...rest, priceMinor }),
    );
  }

  /** A new product through the CLI, with its audit row. */
  async createAsAdmin(
    admin: AdminContext,
    tenantId: number,
    input: ProductInput,
  ): Promise<ProductRow> {
    await this.tenants.get(tenantId);
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const product = await this.insert(tenant, input);
      await this.audit.record(tenant, admin, {
        action: 'product.create',
        targetType: 'product',
        targetId: product.id,
        details: { sku: product.sku },
      });
      return product;
    });
  }

  /** `PATCH`: name, price, active; a change bumps `version` and writes `product.updated`. */
  update(
    ctx: AppContext,
    id: number,
    patch: PatchProductDto,
    ifMatch?: VersionPrecondition,
  ): Promise<ProductRow> {
    return this.change(ctx, id, ifMatch, async (db, current) => {
      const next = {
        name: patch.name ?? current.name,
        price_minor:
          patch.price === undefined
            ? current.price_minor
            : requireAmounts(current.currency, [{ field: 'price', value: patch.price }])[0],
        active: patch.active ?? current.active,
      };
      const changed = changedFields(current, { ...current, ...next });
      if (changed.length === 0) return current;
      const product = await this.products.update(db, id, next);
      await this.events.append(db, [productUpdated(product, changed)]);
      return product;
    });
  }

  /**
   * A delivery or correction (`adjustment`) or a count (`available`); the first call turns
   * tracking on. Writes `product.inventory_changed` with reason `adjustment`.
   */
  changeInventory(
    ctx: AppContext,
    id: number,
    dto: InventoryChangeDto,
    ifMatch?: VersionPrecondition,
  ): Promise<ProductRow> {
    if ((dto.adjustment === undefined) === (dto.available === undefined)) {
      throw new AppError('validation_failed', 'send exactly one of adjustment and available', {
        details: [{ field: 'adjustment', message: 'exactly one of adjustment and available' }],
      });
    }
    return this.change(ctx, id, ifMatch, async (db, current) => {
      const available = dto.available ?? current.available + dto.adjustment!;
      if (Math.abs(available) > AVAILABLE_LIMIT) {
        throw new AppError('validation_failed', `available would leave ±${AVAILABLE_LIMIT}`, {
          details: [{ field: 'adjustment', message: `would take available beyond ±10^12` }],
        });
      }
      if (current.inventory_tracked && available === current.available) return current;
      const product = await this.products.setStock(db, id, available);
      await this.events.append(
        db,
        inventoryChanged([{ product, previousAvailable: current.available }], 'adjustment', {
          note: dto.reason ?? null,
        }),
      );
      return product;
    });
  }

  /**
   * Upserts by sku in one unit of work (all or nothing), in batches of one statement each,
   * each product written with its events. Every existing product of the file is locked first,
   * in one statement in id order (as orders lock them: a lock taken batch by batch would not
   * be), and read as it is then for the events. `onProgress` is told after every batch.
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
      const existing = await this.products.lockBySku(
        tenant,
        rows.map((r) => r.sku),
      );
      const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
      for (let start = 0; start < rows.length; start += IMPORT_BATCH) {
        const batch = rows.slice(start, start + IMPORT_BATCH);
        const lockedIds = batch.flatMap((r) => existing.get(r.sku)?.id ?? []);
        const written = await this.products.upsert(
          tenant,
          batch,
          options.hasActiveColumn,
          lockedIds,
        );
        const seen = new Set(written.map((w) => w.product.sku));
        const raced = batch.filter((r) => !seen.has(r.sku) && !existing.has(r.sku));
        if (raced.length > 0) throw createdMeanwhile(raced.map((r) => r.sku));
        const events: NewEvent[] = [];
        for (const { product, inserted } of written) {
          if (inserted) {
            result.inserted += 1;
            events.push(productCreated(product));
            continue;
          }
          result.updated += 1;
          events.push(...importChangeEvents(existing.get(product.sku)!, product));
        }
        result.unchanged += batch.length - written.length;
        await this.events.append(tenant, events);
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

  private async insert(db: TenantSql, input: ProductInput): Promise<ProductRow> {
    const product = await this.products.insert(db, input);
    if (!product) {
      throw new AppError('sku_taken', `the tenant already has a product with sku "${input.sku}"`, {
        details: [{ field: 'sku', message: 'is taken by another product of the tenant' }],
      });
    }
    await this.events.append(db, [productCreated(product)]);
    return product;
  }

  /** One change of a product: locked, `If-Match` checked, then `apply` on what it read. */
  private change(
    ctx: AppContext,
    id: number,
    ifMatch: VersionPrecondition | undefined,
    apply: (db: TenantSql, current: ProductRow) => Promise<ProductRow>,
  ): Promise<ProductRow> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(ctx.tenantId);
      const current = await this.products.lock(tenant, id);
      if (!current) throw productNotFound(id);
      if (!preconditionHolds(ifMatch, current.version)) {
        throw preconditionFailed(`product ${id}`, current.version);
      }
      return apply(tenant, current);
    });
  }
}

/** An imported row's events: what changed of the product, and its stock when that moved. */
function importChangeEvents(before: ProductRow, after: ProductRow): NewEvent[] {
  const events: NewEvent[] = [];
  const changed = changedFields(before, after);
  if (changed.length > 0) events.push(productUpdated(after, changed));
  if (
    after.inventory_tracked !== before.inventory_tracked ||
    after.available !== before.available
  ) {
    events.push(
      ...inventoryChanged([{ product: after, previousAvailable: before.available }], 'adjustment', {
        note: 'product import',
      }),
    );
  }
  return events;
}

/** Skus another writer created while the import ran: the import is refused, to be run again. */
function createdMeanwhile(skus: string[]): AppError {
  const shown = skus.slice(0, 5).join(', ');
  return new AppError(
    'validation_failed',
    `sku(s) ${shown}${skus.length > 5 ? ', …' : ''} were created by another writer during the import; nothing was imported, run it again`,
  );
}

export function productNotFound(id: number): AppError {
  return new AppError('not_found', `product ${id} not found`);
}

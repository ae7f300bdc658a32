import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import type { AdminContext } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import { Transactions } from '../database/transactions.js';
import { Argon2PasswordHasher } from '../customers/password-hasher.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { SeedOrdersRepository, type SeedCustomer } from '../orders/seed-orders.repository.js';

export interface SeedOrdersRequest {
  tenantId: number;
  count: number;
  /** Registered customers a share of the orders belong to; missing ones are created. */
  customers: number;
  days: number;
  onProgress?: (written: number) => void;
}

/** Orders per statement and transaction: big enough to be set-based, small enough to stream. */
const BATCH = 10_000;
/** Batches written at once. */
const PARALLEL = 2;
/** The share of orders that belong to a registered customer, when there are any. */
const LINKED_SHARE = 0.3;

/**
 * `seed orders` (docs/BEHAVIOUR.md#admin-cli): realistic orders in set-based batches
 * (SeedOrdersRepository: orders, lines and counters together; no events, so no webhooks),
 * then fresh planner statistics and visibility map (`VACUUM (ANALYZE)`): without them, the
 * list's plans at a million orders are several times slower.
 */
@Injectable()
export class OrderSeeder {
  constructor(
    private readonly transactions: Transactions,
    private readonly seeds: SeedOrdersRepository,
    private readonly audit: AuditRepository,
  ) {}

  async seed(admin: AdminContext, request: SeedOrdersRequest): Promise<{ seconds: number }> {
    const started = performance.now();
    const tenant = this.transactions.db.tenant(request.tenantId);
    await this.checkCatalog(tenant);
    const customers = await this.ensureCustomers(tenant, request.customers);
    let next = 0;
    let written = 0;
    // Batches on PARALLEL connections: each statement keeps one PostgreSQL backend busy.
    const run = { failed: false };
    const writer = async () => {
      while (!run.failed && next < request.count) {
        const offset = next;
        const count = Math.min(BATCH, request.count - offset);
        next += count;
        written += await this.transactions
          .run((db) =>
            this.seeds.writeBatch(db.tenant(request.tenantId), {
              count,
              days: request.days,
              customers,
              linkedShare: customers.length > 0 ? LINKED_SHARE : 0,
              offset,
              total: request.count,
            }),
          )
          .catch((error: unknown) => {
            run.failed = true; // the other writers stop after their batch: each batch commits whole
            throw error;
          });
        request.onProgress?.(written);
      }
    };
    // Settled, so no batch is still running when the error reaches the caller.
    const results = await Promise.allSettled(Array.from({ length: PARALLEL }, writer));
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
    // Outside any unit of work: VACUUM cannot run in a transaction.
    await this.seeds.refreshStatistics(
      this.transactions.db.crossTenant('seed-table-maintenance'),
      request.customers > 0,
    );
    await this.transactions.run((db) =>
      this.audit.record(db.tenant(request.tenantId), admin, {
        action: 'seed.orders',
        targetType: 'tenant',
        targetId: request.tenantId,
        details: { count: request.count, customers: customers.length, days: request.days },
      }),
    );
    return { seconds: (performance.now() - started) / 1000 };
  }

  private async checkCatalog(tenant: TenantSql): Promise<void> {
    const row = await this.seeds.catalog(tenant);
    if (!row.tenant) throw new AppError('not_found', `tenant ${tenant.tenantId} not found`);
    if (row.products === 0) {
      throw new AppError(
        'validation_failed',
        `tenant ${tenant.tenantId} has no active product to order`,
      );
    }
  }

  /**
   * The tenant's first `wanted` customers with a verified email (only those may own orders
   * by email, docs/BEHAVIOUR.md#email-trust), creating the missing ones: verified, with the hash of
   * a random password nobody knows (a password reset gives them one).
   */
  private async ensureCustomers(tenant: TenantSql, wanted: number): Promise<SeedCustomer[]> {
    if (wanted === 0) return [];
    const existing = await this.seeds.verifiedCustomers(tenant, wanted);
    if (existing.length === wanted) return existing;
    const hash = await new Argon2PasswordHasher().hash(randomBytes(32).toString('base64url'));
    await this.seeds.addSeedCustomers(tenant, wanted - existing.length, hash, wanted);
    return this.seeds.verifiedCustomers(tenant, wanted);
  }
}

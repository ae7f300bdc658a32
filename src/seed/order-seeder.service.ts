import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { AppError } from '../common/errors/app-error.js';
import { requireTenant } from '../common/tenant-scope.js';
import { Transactions } from '../common/transactions.js';
import { Argon2PasswordHasher } from '../customers/password-hasher.js';
import { OrderWriter } from '../orders/order-writer.js';

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

interface SeedCustomer {
  id: number;
  name: string;
  email: string;
}

/**
 * `seed orders` (docs/BEHAVIOUR.md#admin-cli): realistic orders in set-based batches through the
 * order writer's batch path (orders, lines and counters together; no events, so no webhooks), then
 * fresh planner statistics and visibility map (`VACUUM (ANALYZE)`): without them, the list's
 * plans at a million orders are several times slower.
 */
@Injectable()
export class OrderSeeder {
  constructor(
    private readonly transactions: Transactions,
    private readonly writer: OrderWriter,
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async seed(request: SeedOrdersRequest): Promise<{ seconds: number }> {
    const started = performance.now();
    requireTenant(request.tenantId);
    await this.checkCatalog(request.tenantId);
    const customers = await this.ensureCustomers(request.tenantId, request.customers);
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
          .runWithManager((m) =>
            this.writer.writeSeedBatch(m, {
              tenantId: request.tenantId,
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
    // Outside any transaction: VACUUM cannot run in one.
    await this.dataSource.query('VACUUM (ANALYZE) orders, order_items');
    if (request.customers > 0) await this.dataSource.query('ANALYZE customers');
    await this.audit.record({
      tenantId: request.tenantId,
      action: 'seed.orders',
      targetType: 'tenant',
      targetId: request.tenantId,
      details: { count: request.count, customers: customers.length, days: request.days },
    });
    return { seconds: (performance.now() - started) / 1000 };
  }

  private async checkCatalog(tenantId: number): Promise<void> {
    const [row]: Array<{ tenant: boolean; products: number }> = await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1) AS tenant,
         (SELECT count(*)::int FROM products WHERE tenant_id = $1 AND active) AS products`,
      [tenantId],
    );
    if (!row.tenant) throw new AppError('not_found', `tenant ${tenantId} not found`);
    if (row.products === 0) {
      throw new AppError('validation_failed', `tenant ${tenantId} has no active product to order`);
    }
  }

  /**
   * The tenant's first `wanted` customers with a verified email (only those may own orders
   * by email, docs/BEHAVIOUR.md#email-trust), creating the missing ones: verified, with the hash of
   * a random password nobody knows (a password reset gives them one).
   */
  private async ensureCustomers(tenantId: number, wanted: number): Promise<SeedCustomer[]> {
    if (wanted === 0) return [];
    const verified = () =>
      this.dataSource.query<SeedCustomer[]>(
        `SELECT id, name, email FROM customers WHERE tenant_id = $1 AND email_verified
         ORDER BY id LIMIT $2`,
        [tenantId, wanted],
      );
    const existing = await verified();
    if (existing.length === wanted) return existing;
    const hash = await new Argon2PasswordHasher().hash(randomBytes(32).toString('base64url'));
    // The first free `seed-customer-N` addresses, as many as are missing.
    await this.dataSource.query(
      `INSERT INTO customers (tenant_id, name, email, password_hash, email_verified)
       SELECT $1, 'Seed customer ' || n, 'seed-customer-' || n || '@example.com', $3, true
       FROM generate_series(1, $4::int + $2::int) AS n
       WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = $1
         AND lower(c.email) = 'seed-customer-' || n || '@example.com')
       ORDER BY n LIMIT $2
       ON CONFLICT DO NOTHING`,
      [tenantId, wanted - existing.length, hash, wanted],
    );
    return verified();
  }
}

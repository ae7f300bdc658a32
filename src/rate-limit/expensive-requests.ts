import { Injectable } from '@nestjs/common';
import { ConcurrencyGate, type GateOwner } from '../common/concurrency-gate.js';
import { AppError } from '../common/errors/app-error.js';
import { rateLimitHeaders } from './rate-limit-rule.js';
import { AppConfig } from '../config/app-config.js';

/** An app's requests waiting for a place beyond its cap; one more answers 429 at once. */
const WAITING_PER_APP = 32;
/** Request connections no tenant's expensive requests can take (cheap requests, other tenants). */
const RESERVED_CONNECTIONS = 2;

/**
 * The process's one gate for expensive requests (lists and feeds, whose statements can take
 * up to DB_STATEMENT_TIMEOUT_MS), each holding one connection at a time: all together never
 * more than the request pool less RESERVED_CONNECTIONS (left to cheap requests), a tenant at
 * most EXPENSIVE_CONCURRENCY_PER_TENANT of them and each app at most
 * EXPENSIVE_CONCURRENCY_PER_APP, and freed places go to the tenants in turn: one tenant's
 * flood, or two's, never takes the pool. Each also declares the most memory its answer may
 * take, and all together stay within EXPENSIVE_MEMORY_MB: the largest answers (pages of the
 * largest orders, full feed pages, exports) cannot together take the process's heap. Per
 * process: it protects this process's pool and memory.
 */
@Injectable()
export class ExpensiveRequests {
  readonly gate: ConcurrencyGate;

  /**
   * Runs `work` once `owner` has a place, and gives the place back when the work has settled
   * (not when the client went away: the statement is still running then). A plain wrapper in
   * the service, not a Nest interceptor: the interceptor's observables cost a list about
   * 150 µs of CPU (measured with `npm run bench`).
   */
  async run<T>(caller: Caller, work: () => Promise<T>, memory = 0): Promise<T> {
    const leave = await this.hold(caller, memory);
    try {
      return await work();
    } finally {
      leave();
    }
  }

  /**
   * A place for work that outlives a promise (an answer streamed a page at a time), with
   * `memory`: the most its answer may hold at once (bytes). Returns what gives it back.
   */
  hold(caller: Caller, memory = 0): Promise<() => void> {
    return this.gate.enter(ownerOf(caller), memory);
  }

  constructor(config: AppConfig) {
    const total = Math.max(1, config.DB_POOL_SIZE - RESERVED_CONNECTIONS);
    const perTenant = Math.min(config.EXPENSIVE_CONCURRENCY_PER_TENANT, total);
    const perApp = Math.min(config.EXPENSIVE_CONCURRENCY_PER_APP, perTenant);
    const rule = { policy: 'concurrent', limit: perApp, windowSeconds: 1 };
    this.gate = new ConcurrencyGate(
      {
        total,
        perTenant,
        perApp,
        waitingPerApp: WAITING_PER_APP,
        memory: config.EXPENSIVE_MEMORY_MB * 2 ** 20,
      },
      () =>
        new AppError(
          'rate_limited',
          `Too many list requests of this app or tenant in progress (${perApp} per app, ` +
            `${perTenant} per tenant, ${WAITING_PER_APP} waiting per app); retry in 1 s`,
          { headers: { ...rateLimitHeaders(rule, 0, 1), 'retry-after': '1' } },
        ),
    );
  }
}

/** An app token's or a customer session's context (auth/request-context.ts). */
type Caller = GateOwner & { customerId?: number };

/**
 * Whose places a request takes: an app's own, or, for a customer session, the customer's, as
 * if it were an app of the tenant of its own (ids below zero never meet an app's). A shopper
 * with many sessions then fills only their own four places, never the storefront app's, and
 * customers together never more than the tenant's.
 */
function ownerOf(caller: Caller): GateOwner {
  return caller.customerId === undefined
    ? { tenantId: caller.tenantId, appId: caller.appId }
    : { tenantId: caller.tenantId, appId: -caller.customerId };
}

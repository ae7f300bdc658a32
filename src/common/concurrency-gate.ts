/** Whose request it is. */
export interface GateOwner {
  tenantId: number;
  appId: number;
}

export interface GateLimits {
  /** Requests running at once, all tenants together. */
  total: number;
  /** Requests of one tenant running at once, whatever its number of apps. */
  perTenant: number;
  /** Requests of one app running at once (within its tenant's). */
  perApp: number;
  /** Requests of one app waiting for a place; one more is refused at once. */
  waitingPerApp: number;
  /**
   * The memory all running requests together may take (bytes, by what each declares it may
   * take at most); unlimited when absent.
   */
  memory?: number;
}

interface TenantState {
  running: number;
  apps: Map<number, AppState>;
}

interface AppState {
  running: number;
  waiting: Array<{ weight: number; start: () => void }>;
}

/**
 * Caps the requests that run at once: all together, per tenant, and per app within it, so
 * that expensive requests cannot take every database connection, nor one tenant more than
 * its share. Beyond a cap a request waits in its app's short queue (FIFO), and beyond that
 * it is refused at once with `onFull()`, costing nothing. A freed place goes round robin:
 * to the next tenant with a waiting request that fits, and within it to the next app, so
 * neither one tenant's nor one app's backlog holds back the others.
 *
 * With `memory`, a request also declares the most memory it may take (its `weight`: the
 * largest answer it can build), and all together stay within it: a large request waits until
 * enough is freed. The request next in turn that waits only for memory holds back the ones
 * behind it (and new ones), so a large request is never starved by a stream of small ones.
 */
export class ConcurrencyGate {
  /** Tenants with requests running or waiting, in round-robin order. */
  private readonly tenants = new Map<number, TenantState>();
  private total = 0;
  private memory = 0;
  /** A request next in turn waits for memory only: nothing with a weight passes it. */
  private memoryBlocked = false;

  constructor(
    private readonly limits: GateLimits,
    private readonly onFull: () => Error,
  ) {}

  /**
   * Resolves with the function that gives the place back, once the request may run; `weight`:
   * the most memory it may take (at most the gate's `memory`).
   */
  async enter({ tenantId, appId }: GateOwner, weight = 0): Promise<() => void> {
    const tenant = this.tenants.get(tenantId) ?? { running: 0, apps: new Map<number, AppState>() };
    const app = tenant.apps.get(appId) ?? { running: 0, waiting: [] };
    const held = Math.min(weight, this.limits.memory ?? 0);
    const placeFits = this.placeFits(tenant, app);
    if (placeFits && this.memoryAvailable(held)) {
      this.take(tenant, app, held);
    } else {
      // Waiting for memory alone: what comes later waits behind it.
      if (placeFits) this.memoryBlocked = true;
      if (app.waiting.length >= this.limits.waitingPerApp) throw this.onFull();
      // The place is handed over with it already counted (see startNext()).
      await new Promise<void>((start) => {
        app.waiting.push({ weight: held, start });
        tenant.apps.set(appId, app);
        this.tenants.set(tenantId, tenant);
      });
    }
    tenant.apps.set(appId, app);
    this.tenants.set(tenantId, tenant);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(tenantId, tenant, appId, app, held);
    };
  }

  /** Requests running of a tenant (for tests and metrics). */
  running(tenantId: number): number {
    return this.tenants.get(tenantId)?.running ?? 0;
  }

  private placeFits(tenant: TenantState, app: AppState): boolean {
    return (
      this.total < this.limits.total &&
      tenant.running < this.limits.perTenant &&
      app.running < this.limits.perApp
    );
  }

  /** Whether a request of `weight` may take memory now: it fits, and none waits before it. */
  private memoryAvailable(weight: number): boolean {
    if (weight === 0) return true;
    return !this.memoryBlocked && this.memory + weight <= (this.limits.memory ?? Infinity);
  }

  private take(tenant: TenantState, app: AppState, weight: number): void {
    this.total++;
    this.memory += weight;
    tenant.running++;
    app.running++;
  }

  private leave(
    tenantId: number,
    tenant: TenantState,
    appId: number,
    app: AppState,
    weight: number,
  ): void {
    this.total--;
    this.memory -= weight;
    tenant.running--;
    app.running--;
    // The tenant and the app that just ran go to the back; the first waiting request that
    // fits, in that order, runs next, and its tenant and app go to the back in turn.
    toBack(this.tenants, tenantId, tenant);
    toBack(tenant.apps, appId, app);
    this.startNext();
    if (app.running === 0 && app.waiting.length === 0) tenant.apps.delete(appId);
    if (tenant.running === 0 && tenant.apps.size === 0) this.tenants.delete(tenantId);
  }

  /**
   * Gives what was freed to the waiting requests that fit, in round-robin order. The first one
   * that wants more memory than is free keeps every later request that wants memory waiting
   * (it goes first once enough is freed); requests that take none still pass.
   */
  private startNext(): void {
    this.memoryBlocked = false;
    while (this.startOne());
  }

  private startOne(): boolean {
    for (const [tenantId, tenant] of this.tenants) {
      for (const [appId, candidate] of tenant.apps) {
        const next = candidate.waiting[0];
        if (next === undefined || !this.placeFits(tenant, candidate)) continue;
        if (!this.memoryAvailable(next.weight)) {
          // The first in turn to want memory holds it back from those after it.
          this.memoryBlocked = true;
          continue;
        }
        this.take(tenant, candidate, next.weight);
        toBack(this.tenants, tenantId, tenant);
        toBack(tenant.apps, appId, candidate);
        candidate.waiting.shift()!.start();
        return true;
      }
    }
    return false;
  }
}

/** Moves an entry to the end of its Map's order (the back of the round robin). */
function toBack<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
}

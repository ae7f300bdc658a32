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
}

interface TenantState {
  running: number;
  apps: Map<number, AppState>;
}

interface AppState {
  running: number;
  waiting: Array<() => void>;
}

/**
 * Caps the requests that run at once: all together, per tenant, and per app within it, so
 * that expensive requests cannot take every database connection, nor one tenant more than
 * its share. Beyond a cap a request waits in its app's short queue (FIFO), and beyond that
 * it is refused at once with `onFull()`, costing nothing. A freed place goes round robin:
 * to the next tenant with a waiting request that fits, and within it to the next app, so
 * neither one tenant's nor one app's backlog holds back the others.
 */
export class ConcurrencyGate {
  /** Tenants with requests running or waiting, in round-robin order. */
  private readonly tenants = new Map<number, TenantState>();
  private total = 0;

  constructor(
    private readonly limits: GateLimits,
    private readonly onFull: () => Error,
  ) {}

  /** Resolves with the function that gives the place back, once the request may run. */
  async enter({ tenantId, appId }: GateOwner): Promise<() => void> {
    const tenant = this.tenants.get(tenantId) ?? { running: 0, apps: new Map<number, AppState>() };
    const app = tenant.apps.get(appId) ?? { running: 0, waiting: [] };
    if (this.fits(tenant, app)) {
      this.total++;
      tenant.running++;
      app.running++;
    } else {
      if (app.waiting.length >= this.limits.waitingPerApp) throw this.onFull();
      // The place is handed over with `running` already counted (see leave()).
      await new Promise<void>((resolve) => {
        app.waiting.push(resolve);
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
      this.leave(tenantId, tenant, appId, app);
    };
  }

  /** Requests running of a tenant (for tests and metrics). */
  running(tenantId: number): number {
    return this.tenants.get(tenantId)?.running ?? 0;
  }

  private fits(tenant: TenantState, app: AppState): boolean {
    return (
      this.total < this.limits.total &&
      tenant.running < this.limits.perTenant &&
      app.running < this.limits.perApp
    );
  }

  private leave(tenantId: number, tenant: TenantState, appId: number, app: AppState): void {
    this.total--;
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

  /** Gives one freed place to the first waiting request that fits, in round-robin order. */
  private startNext(): void {
    for (const [tenantId, tenant] of this.tenants) {
      for (const [appId, candidate] of tenant.apps) {
        if (candidate.waiting.length === 0 || !this.fits(tenant, candidate)) continue;
        this.total++;
        tenant.running++;
        candidate.running++;
        toBack(this.tenants, tenantId, tenant);
        toBack(tenant.apps, appId, candidate);
        candidate.waiting.shift()!();
        return;
      }
    }
  }
}

/** Moves an entry to the end of its Map's order (the back of the round robin). */
function toBack<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
}

/** Whose request it is. */
export interface GateOwner {
  tenantId: number;
  appId: number;
}

export interface GateLimits {
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
 * Caps the requests one tenant, and one app within it, may run at once, so that their
 * expensive requests cannot take every database connection from the other tenants. Beyond
 * its cap a request waits in its app's short queue (FIFO), and beyond that it is refused at
 * once with `onFull()`, costing nothing. A place freed in a tenant goes to the next of its
 * apps with a waiting request, in turn, so one app's backlog cannot hold back its siblings.
 */
export class ConcurrencyGate {
  private readonly tenants = new Map<number, TenantState>();

  constructor(
    private readonly limits: GateLimits,
    private readonly onFull: () => Error,
  ) {}

  /** Resolves with the function that gives the place back, once the request may run. */
  async enter({ tenantId, appId }: GateOwner): Promise<() => void> {
    const tenant = this.tenants.get(tenantId) ?? { running: 0, apps: new Map<number, AppState>() };
    const app = tenant.apps.get(appId) ?? { running: 0, waiting: [] };
    if (this.fits(tenant, app)) {
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
    return tenant.running < this.limits.perTenant && app.running < this.limits.perApp;
  }

  private leave(tenantId: number, tenant: TenantState, appId: number, app: AppState): void {
    tenant.running--;
    app.running--;
    // The app that just ran goes to the back; the first app with a waiting request that fits
    // runs next and goes to the back in turn (round robin within the tenant).
    tenant.apps.delete(appId);
    tenant.apps.set(appId, app);
    for (const [id, candidate] of tenant.apps) {
      if (candidate.waiting.length === 0 || !this.fits(tenant, candidate)) continue;
      tenant.running++;
      candidate.running++;
      tenant.apps.delete(id);
      tenant.apps.set(id, candidate);
      candidate.waiting.shift()!();
      break;
    }
    if (app.running === 0 && app.waiting.length === 0) tenant.apps.delete(appId);
    if (tenant.running === 0 && tenant.apps.size === 0) this.tenants.delete(tenantId);
  }
}

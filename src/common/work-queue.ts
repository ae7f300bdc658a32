/** Whose work a task is: shares are held per tenant, and within it per app. */
export interface WorkOwner {
  tenantId: number;
  appId: number;
}

/** Places (running + waiting) one owner may hold in a queue. */
export interface WorkShares {
  perTenant: number;
  /** Within the tenant's share. */
  perApp: number;
}

type Holdings = { held: number; apps: Map<number, number> };

/**
 * At most `concurrency` tasks at once and at most `maxWaiting` queued behind them, shared by
 * tenant first and then by app: a tenant holds at most `perTenant` places and each of its apps
 * at most `perApp`, so one tenant, whatever number of apps it uses, never holds the whole
 * queue. A task refused (full queue or share) costs nothing: `onFull()` is thrown at once.
 *
 * A freed slot goes round-robin to the next tenant with waiting work, and within it to the
 * next app, FIFO within an app: a tenant waits for its own backlog and one turn of each
 * other busy tenant, never behind another tenant's whole backlog.
 */
export class FairWorkQueue {
  private active = 0;
  private waiting = 0;
  private readonly holdings = new Map<number, Holdings>();
  /** Waiting starts by tenant, then app; Map order is the round-robin order. */
  private readonly ready = new Map<number, Map<number, Array<() => void>>>();

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
    private readonly shares: WorkShares,
    private readonly onFull: () => Error,
  ) {}

  async run<T>(owner: WorkOwner, task: () => Promise<T>): Promise<T> {
    const mustWait = this.active >= this.concurrency;
    if (mustWait && this.waiting >= this.maxWaiting) throw this.onFull();
    this.take(owner);
    try {
      if (mustWait) await this.queue(owner);
      else this.active++;
      return await task();
    } finally {
      this.release(owner);
      this.startNext();
    }
  }

  /** Tasks running and waiting (for tests and metrics). */
  get size(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting };
  }

  /** Counts the place against the owner's shares, or refuses it. */
  private take({ tenantId, appId }: WorkOwner): void {
    const tenant = this.holdings.get(tenantId) ?? { held: 0, apps: new Map<number, number>() };
    const app = tenant.apps.get(appId) ?? 0;
    if (tenant.held >= this.shares.perTenant || app >= this.shares.perApp) throw this.onFull();
    tenant.held++;
    tenant.apps.set(appId, app + 1);
    this.holdings.set(tenantId, tenant);
  }

  private release({ tenantId, appId }: WorkOwner): void {
    const tenant = this.holdings.get(tenantId)!;
    const app = tenant.apps.get(appId)! - 1;
    if (app === 0) tenant.apps.delete(appId);
    else tenant.apps.set(appId, app);
    if (--tenant.held === 0) this.holdings.delete(tenantId);
  }

  private queue({ tenantId, appId }: WorkOwner): Promise<void> {
    this.waiting++;
    const apps = this.ready.get(tenantId) ?? new Map<number, Array<() => void>>();
    this.ready.set(tenantId, apps);
    const starts = apps.get(appId) ?? [];
    apps.set(appId, starts);
    return new Promise<void>((resolve) => starts.push(resolve));
  }

  /** Hands the freed slot to the next owner in turn (`active` stays the same), else frees it. */
  private startNext(): void {
    const next = this.ready.entries().next();
    if (next.done) {
      this.active--;
      return;
    }
    const [tenantId, apps] = next.value;
    const [appId, starts] = apps.entries().next().value!;
    const start = starts.shift()!;
    // Served ones go to the back of their ring, or leave it when they have nothing waiting.
    apps.delete(appId);
    if (starts.length > 0) apps.set(appId, starts);
    this.ready.delete(tenantId);
    if (apps.size > 0) this.ready.set(tenantId, apps);
    this.waiting--;
    start();
  }
}

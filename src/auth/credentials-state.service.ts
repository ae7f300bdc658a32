import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { Transactions } from '../database/transactions.js';
import { CREDENTIALS_CHANNEL, type CredentialsEvent } from './credentials-events.js';
import { AppClientsRepository } from './app-clients.repository.js';
import { type AppCredentials, CredentialsRepository } from './credentials.repository.js';

export type { AppCredentials } from './credentials.repository.js';

/** Even with notifications flowing, everything cached is dropped this often. */
const RECONCILE_MS = 30_000;
const RECONNECT_MS = 1_000;
/**
 * A half-open LISTEN connection (peer gone without a FIN: a partition, a host gone) delivers
 * nothing and reports nothing, while the cache it vouches for goes on answering; a query every
 * HEARTBEAT_MS that must answer within HEARTBEAT_TIMEOUT_MS finds it, so revocations are
 * missed for at most about two seconds then (one `SELECT 1` a second per instance).
 */
const HEARTBEAT_MS = 1_000;
const HEARTBEAT_TIMEOUT_MS = 1_000;

/**
 * What token checks need to know about apps and revocations, kept in memory so the common
 * request costs no database round trip.
 *
 * Admin actions NOTIFY on commit (credentials-events.ts); every instance LISTENs and drops
 * the affected entries, so a change takes effect everywhere within milliseconds. The cache
 * is trusted only while the LISTEN connection is up: when it drops, every check goes to the
 * database until the connection is back and the cache reloaded. A periodic reconciliation
 * bounds any other way of missing an event. A generation counter stops a load that started
 * before an invalidation from writing stale data after it.
 *
 * Trust is tied to one connection: `listener` is the connection being set up or in use, and
 * the cache is trusted only once that very connection LISTENs and a reload that began after
 * it did has finished. A connection lost at any step (even mid-reload) leaves the cache
 * distrusted and schedules exactly one reconnect.
 */
@Injectable()
export class CredentialsState implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CredentialsState');
  private readonly apps = new Map<number, AppCredentials>();
  private readonly appIdsByClientId = new Map<string, number>();
  /** Revoked, unexpired token and session ids → their expiry (epoch ms), pruned past it. */
  private readonly revokedTokens = new Map<string, number>();
  private readonly revokedSessions = new Map<string, number>();
  private generation = 0;
  /** Database time of the last load of revocations; undefined: load them all next time. */
  private loadedUpTo?: Date;
  private trusted = false;
  /** The LISTEN connection being set up or in use; undefined while none is. */
  private listener?: pg.Client;
  /** Whether `listener` has completed LISTEN (events are flowing to us). */
  private listening = false;
  /** Counts losses of trust: a reload that began before one must not set `loadedUpTo`. */
  private distrusts = 0;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    /** The request pool: per-request checks while the cache is not trusted. */
    private readonly transactions: Transactions,
    /** The background pool: reloads, so a flood of requests never delays one. */
    private readonly background: BackgroundTransactions,
    private readonly credentials: CredentialsRepository,
    private readonly clients: AppClientsRepository,
    /** Where the LISTEN connection goes: a client of its own, outside both pools. */
    private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    const reconcile = setInterval(() => void this.refresh(), RECONCILE_MS);
    reconcile.unref();
    const heartbeat = setInterval(() => void this.heartbeat(), HEARTBEAT_MS);
    heartbeat.unref();
    this.timers.push(reconcile, heartbeat);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.timers.forEach((timer) => clearTimeout(timer));
    await this.listener?.end().catch(() => undefined);
  }

  /**
   * The answers the cache can give at once, without a promise: the app while the cache is
   * trusted and holds it, and whether a token or session is revoked while it is trusted.
   * Undefined means "ask appById / isTokenRevoked / isSessionRevoked" (a miss, or not trusted).
   */
  cachedApp(tenantId: number, appId: number): AppCredentials | undefined {
    const cached = this.trusted ? this.apps.get(appId) : undefined;
    return cached?.tenantId === tenantId ? cached : undefined;
  }

  cachedRevocation(kind: 'app' | 'customer', id: string): boolean | undefined {
    if (!this.trusted) return undefined;
    return kind === 'app' ? this.revokedTokens.has(id) : this.revokedSessions.has(id);
  }

  async appById(tenantId: number, appId: number): Promise<AppCredentials | undefined> {
    const cached = this.trusted ? this.apps.get(appId) : undefined;
    if (cached) return cached.tenantId === tenantId ? cached : undefined;
    return this.load(() => this.credentials.appById(this.transactions.db.tenant(tenantId), appId));
  }

  async appByClientId(clientId: string): Promise<AppCredentials | undefined> {
    const id = this.trusted ? this.appIdsByClientId.get(clientId) : undefined;
    const cached = id === undefined ? undefined : this.apps.get(id);
    if (cached) return cached;
    return this.load(async () => {
      const db = this.transactions.db;
      const tenantId = await this.clients.tenantOf(db.crossTenant('credentials'), clientId);
      return tenantId === undefined
        ? undefined
        : this.credentials.appByClientId(db.tenant(tenantId), clientId);
    });
  }

  async isTokenRevoked(tenantId: number, jti: string): Promise<boolean> {
    return (
      this.cachedRevocation('app', jti) ??
      this.credentials.isTokenRevoked(this.transactions.db.tenant(tenantId), jti)
    );
  }

  async isSessionRevoked(tenantId: number, sessionId: string): Promise<boolean> {
    return (
      this.cachedRevocation('customer', sessionId) ??
      this.credentials.isSessionRevoked(this.transactions.db.tenant(tenantId), sessionId)
    );
  }

  /** Applies an event; exposed so the instance that made a change needs no round trip. */
  apply(event: CredentialsEvent): void {
    this.generation++;
    switch (event.kind) {
      case 'app': {
        const app = this.apps.get(event.appId);
        if (app) this.appIdsByClientId.delete(app.clientId);
        this.apps.delete(event.appId);
        break;
      }
      case 'token':
        this.revokedTokens.set(event.jti, event.expiresAt);
        break;
      case 'session':
        this.revokedSessions.set(event.id, event.expiresAt);
        break;
    }
  }

  private async load(
    read: () => Promise<AppCredentials | undefined>,
  ): Promise<AppCredentials | undefined> {
    const generation = this.generation;
    const app = await read();
    if (app && this.trusted && generation === this.generation) {
      this.apps.set(app.id, app);
      this.appIdsByClientId.set(app.clientId, app.id);
    }
    return app;
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const url = (this.dataSource.options as { url?: string }).url;
    const client = new pg.Client({
      connectionString: url,
      application_name: 'storefront-listener',
      keepAlive: true,
    });
    client.on('notification', (message) => this.onNotification(message.payload));
    client.on('error', () => this.onListenerLost(client));
    client.on('end', () => this.onListenerLost(client));
    // Claimed before the first await: a loss at any later step is this connection's loss.
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CREDENTIALS_CHANNEL}`);
      if (this.listener !== client) return; // lost meanwhile; a reconnect is scheduled
      this.listening = true;
      // Listening first, then loading: nothing can change unseen in between.
      await this.reload();
      // Lost during the reload: stays distrusted (the reconnect already scheduled reloads).
      if (this.listener === client) this.trusted = true;
    } catch (error) {
      this.logger.warn(
        { err: error },
        'credentials listener unavailable; checking the database per request',
      );
      this.onListenerLost(client);
      void client.end().catch(() => undefined);
    }
  }

  private onNotification(payload: string | undefined): void {
    try {
      this.apply(JSON.parse(payload ?? '') as CredentialsEvent);
    } catch {
      // An event we cannot read: forget everything rather than guess.
      this.distrust();
      void this.refresh();
    }
  }

  private onListenerLost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    this.listening = false;
    this.distrust();
    if (!this.stopped) {
      this.logger.warn(
        'credentials listener lost; checking the database per request until it is back',
      );
      this.scheduleReconnect();
    }
  }

  /** Drops the listener when it does not answer in time; it then reconnects. */
  async heartbeat(): Promise<void> {
    const client = this.listener;
    if (!client || !this.listening) return; // none, or still connecting (its own errors count)
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('heartbeat timed out')), HEARTBEAT_TIMEOUT_MS);
    });
    try {
      await Promise.race([client.query('SELECT 1'), timeout]);
    } catch {
      this.logger.warn('credentials listener did not answer; reconnecting');
      this.onListenerLost(client);
      // Not awaited: a half-open socket may never finish closing.
      void client.end().catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether checks are answered from memory (the LISTEN connection is up). */
  get cacheTrusted(): boolean {
    return this.trusted;
  }

  /** For tests: the revoked ids held in memory. */
  get revokedCount(): { tokens: number; sessions: number } {
    return { tokens: this.revokedTokens.size, sessions: this.revokedSessions.size };
  }

  private distrust(): void {
    this.trusted = false;
    this.generation++;
    this.distrusts++;
    // Events may have been missed: the next load is a full one.
    this.loadedUpTo = undefined;
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const timer = setTimeout(() => void this.listen(), RECONNECT_MS);
    timer.unref();
    this.timers.push(timer);
  }

  /** Reloads everything cached (every RECONCILE_MS; tests call it directly). */
  async refresh(): Promise<void> {
    // Only a connection that listened before the reload began and still does makes the
    // cache trustworthy: an event sent before LISTEN took effect may be missing from it.
    const listener = this.listening ? this.listener : undefined;
    try {
      await this.reload();
      this.trusted = listener !== undefined && this.listener === listener && this.listening;
    } catch {
      this.distrust();
    }
  }

  /**
   * Drops cached apps and loads revoked, unexpired tokens and sessions: all of them after
   * (re)connecting, else only those revoked since the last load (with a minute of overlap
   * for transactions that committed late; their NOTIFY reaches the trusted listener anyway).
   * A union keeps any event that arrived while the query ran; ids past their expiry are
   * forgotten (an expired token fails its own check), so the sets do not grow without end.
   */
  private async reload(): Promise<void> {
    const distrusts = this.distrusts;
    this.generation++;
    this.apps.clear();
    this.appIdsByClientId.clear();
    const since = this.loadedUpTo ? new Date(this.loadedUpTo.getTime() - 60_000) : null;
    const db = this.background.db;
    const [tokens, sessions, now] = await Promise.all([
      this.credentials.revokedTokens(db.crossTenant('credentials'), since),
      this.credentials.revokedSessions(db.crossTenant('credentials'), since),
      this.credentials.now(db.shared()),
    ]);
    for (const { id, expires_at } of tokens) this.revokedTokens.set(id, expires_at.getTime());
    for (const { id, expires_at } of sessions) this.revokedSessions.set(id, expires_at.getTime());
    pruneExpired(this.revokedTokens);
    pruneExpired(this.revokedSessions);
    // Trust was lost while this ran: events may have been missed, so the next load is full.
    if (distrusts === this.distrusts) this.loadedUpTo = now;
  }
}

/** Forgets ids whose token expired more than the verifier's clock leeway ago. */
function pruneExpired(revoked: Map<string, number>): void {
  const horizon = Date.now() - 60_000;
  for (const [id, expiresAt] of revoked) if (expiresAt < horizon) revoked.delete(id);
}

import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { isDatabaseDown } from '../common/errors/error-response.js';
import { redactedUrl } from './connection-failure.js';
import { dataSourceOptions } from './data-source-options.js';
import { parseLsn, ReplicaLag } from './replica-lag.js';
import { Db } from './sql/db.js';
import { BackgroundTransactions } from './background-transactions.js';
import { Transactions } from './transactions.js';

/** How often each replica's lag is checked: in the background, never per request. */
export const REPLICA_CHECK_MS = 250;
/** A replica that does not answer a check within this is left out. */
const CHECK_TIMEOUT_MS = 1_000;
/**
 * How long a read waits for a replica to replay the primary's position when it came: a
 * replica in rotation is normally milliseconds behind; past this the primary serves.
 */
const FRESHNESS_WAIT_MS = 50;
const FRESHNESS_POLL_MS = 2;
/** SQLSTATE 40001 on a standby: a statement cancelled by a conflict with WAL replay. */
const RECOVERY_CONFLICT = '40001';

/** One replica as the checks see it. */
export interface ReplicaState {
  /** `host:port/database`: a metric label, never the password. */
  readonly name: string;
  /** In rotation: answering, a standby of this database, within READ_REPLICA_MAX_LAG_MS. */
  usable: boolean;
  /** Milliseconds behind the primary at the last check, at most (Infinity: left out). */
  lagMs: number;
  reads: number;
}

interface Replica extends ReplicaState {
  readonly url: string;
  readonly dataSource: DataSource;
  readonly db: Db;
  /** Replayed at least this far (a WAL position), as last seen. */
  replayed: bigint;
  /** The checks' own connection, apart from the pool that reads use. */
  probe?: pg.Client;
  checking?: Promise<void>;
}

/**
 * The streaming replicas of DATABASE_READ_URLS, for the reads CONTRACT 8 lets them serve
 * (the change feed, order lists in cursor mode, product lists, data exports). Each URL must
 * name one server. A read goes to the primary inside a unit of work (a request that writes
 * reads its own writes) or with no replica in rotation. Otherwise it asks the primary for its
 * WAL position (flushed: every commit anyone has seen is in it) and a replica serves it once
 * it has replayed that far, so a replica answers as the primary would have when the request
 * came: an erasure, a write by id, a page of a walk are never seen undone. A replica that
 * fails a read is left out and the primary answers. Checks run in the background every
 * REPLICA_CHECK_MS, on a connection of their own.
 */
@Injectable()
export class ReadReplicas implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplicas');
  private readonly replicas: Replica[];
  private readonly lag: ReplicaLag;
  /** The primary's database_id (service_settings): a replica must hold the same. */
  private databaseId?: string;
  private primaryReads = 0;
  private next = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly background: BackgroundTransactions,
  ) {
    this.lag = new ReplicaLag(config.READ_REPLICA_MAX_LAG_MS * 2 + CHECK_TIMEOUT_MS);
    this.replicas = (config.DATABASE_READ_URLS ?? []).map((url, index) => {
      const dataSource = new DataSource(
        dataSourceOptions(url, {
          size: config.DB_POOL_SIZE,
          statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
          acquireTimeoutMs: CHECK_TIMEOUT_MS,
          applicationName: `storefront-read-${index}`,
        }),
      );
      return {
        name: replicaName(url),
        url,
        dataSource,
        db: new Db(dataSource.manager),
        usable: false,
        lagMs: Infinity,
        reads: 0,
        replayed: 0n,
      };
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.all(this.replicas.flatMap((r) => (r.checking ? [r.checking] : [])));
    await Promise.all(
      this.replicas.flatMap((r) => (r.probe ? [r.probe.end().catch(() => undefined)] : [])),
    );
    await Promise.all(
      this.replicas.filter((r) => r.dataSource.isInitialized).map((r) => r.dataSource.destroy()),
    );
  }

  /** Whether any replica may serve reads at all. */
  get configured(): boolean {
    return this.replicas.length > 0;
  }

  /**
   * Runs a read on a replica that has replayed what the primary held when it came (see the
   * class), else on the primary. `work` must only read: it may run twice, on the primary
   * after a replica failed it.
   */
  async read<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (this.inUnit() || !this.replicas.some((r) => r.usable)) return this.onPrimary(work);
    const [{ position }] = await this.transactions.db
      .shared()
      .rows<{ position: string }>('SELECT pg_current_wal_flush_lsn()::text AS position');
    return this.readFrom(position, work);
  }

  /**
   * Like `read`, with the primary's WAL position given: the caller read it after what the
   * read must cover (an order walk's horizon, OrderListRepository.horizonAndPosition).
   */
  async readFrom<T>(position: string, work: (db: Db) => Promise<T>): Promise<T> {
    if (this.inUnit()) return this.onPrimary(work);
    const needed = parseLsn(position);
    const replica = this.pick();
    if (!replica || !(await this.hasReplayed(replica, needed))) return this.onPrimary(work);
    try {
      const result = await work(replica.db);
      replica.reads++;
      return result;
    } catch (error) {
      if (isPoolExhausted(error)) return this.onPrimary(work);
      if (isDatabaseDown(error)) this.leaveOut(replica, 'failed a read');
      else if (codeOf(error) !== RECOVERY_CONFLICT) throw error;
      return this.onPrimary(work);
    }
  }

  /** For the metrics: each replica's state, and the reads the primary served for `read`. */
  state(): { replicas: readonly ReplicaState[]; primaryReads: number } {
    return { replicas: this.replicas, primaryReads: this.primaryReads };
  }

  /** Samples the primary, then checks every replica not still being checked. */
  async check(): Promise<void> {
    const asked = performance.now();
    try {
      const shared = this.background.pool.shared();
      const [{ lsn }] = await shared.rows<{ lsn: string }>(
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      this.lag.sample(lsn, asked);
      this.databaseId ??= (
        await shared.first<{ value: string }>(
          `SELECT value FROM service_settings WHERE name = 'database_id'`,
        )
      )?.value;
    } catch {
      // The primary is away: the replicas are judged on the samples already taken.
    }
    await Promise.all(
      this.replicas.map((replica) => {
        replica.checking ??= this.checkOne(replica).finally(() => (replica.checking = undefined));
        return replica.checking;
      }),
    );
  }

  private onPrimary<T>(work: (db: Db) => Promise<T>): Promise<T> {
    this.primaryReads++;
    return work(this.transactions.db);
  }

  private inUnit(): boolean {
    return this.transactions.db !== this.transactions.pool;
  }

  /**
   * The next replica in rotation, round robin: the load spreads evenly. One not yet known to
   * have replayed far enough is asked (hasReplayed), a small statement on the replica.
   */
  private pick(): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const index = (this.next + i) % this.replicas.length;
      if (this.replicas[index].usable) {
        this.next = (index + 1) % this.replicas.length;
        return this.replicas[index];
      }
    }
    return undefined;
  }

  /** Whether the replica has replayed `needed`, waiting up to FRESHNESS_WAIT_MS for it. */
  private async hasReplayed(replica: Replica, needed: bigint): Promise<boolean> {
    const deadline = performance.now() + FRESHNESS_WAIT_MS;
    try {
      while (replica.replayed < needed) {
        const left = deadline - performance.now();
        if (left <= 0) return false;
        const [{ replayed }] = await withTimeout(
          replica.db
            .shared()
            .rows<{ replayed: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS replayed'),
          left,
        );
        if (replayed === null) return false;
        replica.replayed = parseLsn(replayed);
        if (replica.replayed < needed) {
          await new Promise((resolve) => setTimeout(resolve, FRESHNESS_POLL_MS));
        }
      }
      return true;
    } catch (error) {
      if (isDatabaseDown(error) && !isPoolExhausted(error)) {
        this.leaveOut(replica, 'failed a read');
      }
      return false;
    }
  }

  private async checkOne(replica: Replica): Promise<void> {
    try {
      if (!replica.dataSource.isInitialized) await replica.dataSource.initialize();
      const probe = await this.probeOf(replica);
      const { rows } = await withTimeout(
        probe.query<{ standby: boolean; replayed: string | null; database_id: string | null }>(
          `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed,
             (SELECT value FROM service_settings WHERE name = 'database_id') AS database_id`,
        ),
        CHECK_TIMEOUT_MS,
      );
      const [row] = rows;
      if (!row.standby || row.replayed === null) {
        replica.lagMs = Infinity;
        return this.leaveOut(replica, 'is not a streaming standby (promoted, or a primary)');
      }
      if (this.databaseId === undefined || row.database_id !== this.databaseId) {
        replica.lagMs = Infinity;
        return this.leaveOut(replica, 'is not a replica of this database (database_id differs)');
      }
      replica.replayed = parseLsn(row.replayed);
      replica.lagMs = Math.round(this.lag.lagMs(row.replayed, performance.now()));
      if (replica.lagMs > this.config.READ_REPLICA_MAX_LAG_MS) {
        return this.leaveOut(replica, `is ${replica.lagMs} ms behind`);
      }
      if (!replica.usable) this.logger.log(`replica ${replica.name} is in rotation`);
      replica.usable = true;
    } catch (error) {
      // A probe that failed or hung is dropped; the next check connects afresh.
      void replica.probe?.end().catch(() => undefined);
      replica.probe = undefined;
      replica.lagMs = Infinity;
      this.leaveOut(replica, `does not answer (${(error as Error).message})`);
    }
  }

  private async probeOf(replica: Replica): Promise<pg.Client> {
    if (replica.probe) return replica.probe;
    const probe = new pg.Client({
      connectionString: replica.url,
      application_name: 'storefront-replica-check',
      connectionTimeoutMillis: CHECK_TIMEOUT_MS,
      keepAlive: true,
    });
    probe.on('error', () => {
      if (replica.probe === probe) replica.probe = undefined;
    });
    await probe.connect();
    if (this.stopped) {
      await probe.end();
      throw new Error('shutting down');
    }
    replica.probe = probe;
    return probe;
  }

  private leaveOut(replica: Replica, why: string): void {
    if (replica.usable) this.logger.warn(`replica ${replica.name} left out: it ${why}`);
    replica.usable = false;
  }
}

function replicaName(url: string): string {
  try {
    const { host, pathname } = new URL(url);
    return `${host}${pathname}`;
  } catch {
    return redactedUrl(url);
  }
}

/** The pool had no free connection in time: the replica is busy, not gone. */
function isPoolExhausted(error: unknown): boolean {
  return error instanceof Error && /timeout exceeded when trying to connect/.test(error.message);
}

function codeOf(error: unknown): string | undefined {
  const { code, driverError } = (error ?? {}) as {
    code?: unknown;
    driverError?: { code?: unknown };
  };
  const found = typeof code === 'string' ? code : driverError?.code;
  return typeof found === 'string' ? found : undefined;
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms)} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

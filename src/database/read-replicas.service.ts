import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { isDatabaseDown } from '../common/errors/error-response.js';
import { redactedUrl } from './connection-failure.js';
import { dataSourceOptions } from './data-source-options.js';
import { ReplicaLag } from './replica-lag.js';
import { Db } from './sql/db.js';
import { BackgroundTransactions } from './background-transactions.js';
import { Transactions } from './transactions.js';

/** How often each replica's lag is checked: in the background, never per request. */
export const REPLICA_CHECK_MS = 250;
/** A replica that does not answer a check within this is left out. */
const CHECK_TIMEOUT_MS = 1_000;
/**
 * How long a read that needs a WAL position (readFrom) waits for a replica to replay it: a
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
  /** In rotation: answering, a standby, within READ_REPLICA_MAX_LAG_MS. */
  usable: boolean;
  /** Milliseconds behind the primary at the last check (Infinity: not answering). */
  lagMs: number;
  reads: number;
}

interface Replica extends ReplicaState {
  readonly dataSource: DataSource;
  readonly db: Db;
}

/**
 * The streaming replicas of DATABASE_READ_URLS, for the reads CONTRACT 8 lets them serve
 * (the change feed, order lists in cursor mode, product lists, data exports). `read` hands a read to a replica in
 * rotation, or to the primary: inside a unit of work (a request that writes reads its own
 * writes), with no replica in rotation, or when the replica fails mid-read (it is then left
 * out until a check finds it well). Checks run in the background every REPLICA_CHECK_MS.
 */
@Injectable()
export class ReadReplicas implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplicas');
  private readonly replicas: Replica[];
  private readonly lag: ReplicaLag;
  private primaryReads = 0;
  private next = 0;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

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
        dataSource,
        db: new Db(dataSource.manager),
        usable: false,
        lagMs: Infinity,
        reads: 0,
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
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(
      this.replicas.filter((r) => r.dataSource.isInitialized).map((r) => r.dataSource.destroy()),
    );
  }

  /**
   * Runs a read on a replica in rotation, else on the primary (see the class). `work` must
   * only read: it may run twice, on the primary after a replica failed it.
   */
  async read<T>(work: (db: Db) => Promise<T>): Promise<T> {
    const replica = this.inUnit() ? undefined : this.pick();
    return this.readOn(replica, work);
  }

  /**
   * Like `read`, for a read that must see everything the primary held at WAL position
   * `position` (pg_current_wal_insert_lsn() on the primary, read after what it must cover):
   * the replica serves it only once it has replayed that far, which it is given
   * FRESHNESS_WAIT_MS to do; else the primary serves it. The read is then as if made on the
   * primary at a later instant, so a walk's pages never go back in time.
   */
  async readFrom<T>(position: string, work: (db: Db) => Promise<T>): Promise<T> {
    const replica = this.inUnit() ? undefined : this.pick();
    const fresh = replica && (await this.hasReplayed(replica, position));
    return this.readOn(fresh ? replica : undefined, work);
  }

  /** Whether any replica may serve reads: when none is configured, nobody needs a position. */
  get configured(): boolean {
    return this.replicas.length > 0;
  }

  private inUnit(): boolean {
    return this.transactions.db !== this.transactions.pool;
  }

  private async readOn<T>(replica: Replica | undefined, work: (db: Db) => Promise<T>): Promise<T> {
    if (replica) {
      try {
        const result = await work(replica.db);
        replica.reads++;
        return result;
      } catch (error) {
        if (isDatabaseDown(error)) this.leaveOut(replica, 'failed a read');
        else if (codeOf(error) !== RECOVERY_CONFLICT) throw error;
      }
    }
    this.primaryReads++;
    return work(this.transactions.db);
  }

  private async hasReplayed(replica: Replica, position: string): Promise<boolean> {
    const deadline = Date.now() + FRESHNESS_WAIT_MS;
    try {
      for (;;) {
        const [{ replayed }] = await replica.db
          .shared()
          .rows<{ replayed: boolean }>(
            'SELECT COALESCE(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS replayed',
            [position],
          );
        if (replayed) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, FRESHNESS_POLL_MS));
      }
    } catch (error) {
      if (isDatabaseDown(error)) this.leaveOut(replica, 'failed a read');
      return false;
    }
  }

  /** For the metrics: each replica's state, and the reads the primary served for `read`. */
  state(): { replicas: readonly ReplicaState[]; primaryReads: number } {
    return { replicas: this.replicas, primaryReads: this.primaryReads };
  }

  /** Checks every replica now (and waits for a check already running). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private pick(): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (replica.usable) {
        this.next = (this.next + i + 1) % this.replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  private async checkAll(): Promise<void> {
    try {
      const [{ lsn }] = await this.background.pool
        .shared()
        .rows<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      this.lag.sample(lsn, Date.now());
    } catch {
      // The primary is away: the replicas are judged on the samples already taken.
    }
    await Promise.all(this.replicas.map((replica) => this.checkOne(replica)));
  }

  private async checkOne(replica: Replica): Promise<void> {
    try {
      if (!replica.dataSource.isInitialized) await replica.dataSource.initialize();
      const [row] = await withTimeout(
        replica.db
          .shared()
          .rows<{ standby: boolean; replayed: string | null }>(
            `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed`,
          ),
        CHECK_TIMEOUT_MS,
      );
      if (!row.standby || row.replayed === null) {
        replica.lagMs = Infinity;
        return this.leaveOut(replica, 'is not a streaming standby (promoted, or a primary)');
      }
      replica.lagMs = this.lag.lagMs(row.replayed, Date.now());
      if (replica.lagMs > this.config.READ_REPLICA_MAX_LAG_MS) {
        return this.leaveOut(replica, `is ${replica.lagMs} ms behind`);
      }
      if (!replica.usable) this.logger.log(`replica ${replica.name} is in rotation`);
      replica.usable = true;
    } catch (error) {
      replica.lagMs = Infinity;
      this.leaveOut(replica, `does not answer (${(error as Error).message})`);
    }
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
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

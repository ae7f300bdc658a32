import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnModuleInit,
} from '@nestjs/common';
import PgBoss from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { type Db, managerOf } from '../database/sql/db.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BACKGROUND_DATA_SOURCE } from '../database/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import { BossDatabase } from './boss-database.js';

export const IMPORT_QUEUE = 'marketplace-import';
export const MAINTENANCE_QUEUE = 'maintenance';
export const WEBHOOK_QUEUE = 'webhook-delivery';
const QUEUE_SETUP_LOCK = 7_240_003;

/**
 * pg-boss on the service's own database (schema `pgboss`): jobs are rows, so they survive
 * crashes and any number of processes share them. Jobs are sent inside the caller's
 * transaction, so a job exists exactly when the row it is about does.
 */
@Injectable()
export class JobQueue implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobQueue');
  readonly boss: PgBoss;
  private readonly database: BossDatabase;

  constructor(
    // The background pool: set-up waits on a lock as long as it takes, with no deadline.
    @InjectDataSource(BACKGROUND_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {
    this.database = new BossDatabase(
      (dataSource.options as { url: string }).url,
      4,
      (error, what) => this.logger.warn({ err: error }, `job queue: ${what}`),
    );
    this.boss = new PgBoss({
      db: this.database,
      schema: this.database.schema,
      // Maintenance moves attempts that outlived IMPORT_JOB_TIMEOUT_SECONDS back to retry.
      maintenanceIntervalSeconds: 5,
    });
    this.boss.on('error', (error: Error) => this.logger.warn({ err: error }, 'job queue error'));
  }

  /**
   * pg-boss installs its schema on first start and a table per queue; processes starting
   * together would race (deadlock) doing so, so every queue is created here, in turns under
   * an advisory lock, before any module's bootstrap uses one.
   */
  async onModuleInit(): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK]);
      await this.boss.start();
      await this.boss.createQueue(IMPORT_QUEUE, {
        name: IMPORT_QUEUE,
        retryLimit: this.config.IMPORT_RETRY_LIMIT,
        retryDelay: this.config.IMPORT_RETRY_DELAY_SECONDS,
        retryBackoff: true,
        expireInSeconds: this.config.IMPORT_JOB_TIMEOUT_SECONDS,
      });
      await this.boss.createQueue(MAINTENANCE_QUEUE, { name: MAINTENANCE_QUEUE, retryLimit: 0 });
      // Each delivery job carries its own retry and expiry options (webhook-delivery-job.ts).
      await this.boss.createQueue(WEBHOOK_QUEUE, { name: WEBHOOK_QUEUE });
    } finally {
      await runner
        .query('SELECT pg_advisory_unlock($1)', [QUEUE_SETUP_LOCK])
        .catch(() => undefined);
      await runner.release();
    }
  }

  /** Before the database pool closes: lets the jobs in hand finish, then closes pg-boss. */
  async beforeApplicationShutdown(): Promise<void> {
    try {
      await this.boss.stop({
        graceful: true,
        wait: true,
        timeout: this.config.SHUTDOWN_TIMEOUT_MS,
      });
    } catch (error) {
      // The database went away during shutdown: unfinished jobs expire and are retried.
      this.logger.warn({ err: error }, 'job queue did not stop cleanly');
    } finally {
      await this.database.close();
    }
  }

  /** Enqueues in the given unit of work: committed together or not at all. */
  async sendInTransaction(
    db: Db,
    queue: string,
    data: object,
    options: Pick<PgBoss.SendOptions, 'priority'> = {},
  ): Promise<void> {
    await this.boss.send(queue, data, { ...options, db: inTransaction(managerOf(db)) });
  }

  /** Enqueues many jobs in one statement of the given unit of work. */
  async insertInTransaction(db: Db, jobs: PgBoss.JobInsert[]): Promise<void> {
    if (jobs.length > 0) await this.boss.insert(jobs, { db: inTransaction(managerOf(db)) });
  }
}

/** pg-boss's database adapter over a TypeORM transaction. */
function inTransaction(manager: EntityManager): PgBoss.Db {
  return {
    executeSql: async (text: string, values: unknown[]) => ({
      rows: (await manager.query(text, values)) as unknown[],
    }),
  };
}

import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type PgBoss from 'pg-boss';
import { AppConfig } from '../config/app-config.js';
import { IMPORT_QUEUE, JobQueue } from '../queue/job-queue.service.js';
import type { ImportJob } from './import-job.js';
import { ImportLanesRepository, tagOf } from './import-lanes.repository.js';
import { BackgroundTransactions } from '../database/background-transactions.js';
import { ImportProcessor, publicReason } from './import-processor.service.js';

/**
 * Pulls import jobs: WORKER_CONCURRENCY pollers per process, IMPORT_BATCH_SIZE jobs each.
 * Jobs are failed one by one (pg-boss then retries with backoff); the rest of the batch
 * completes. After the last retry the import is marked `failed` with the reason. The handler
 * never throws: its own error handling failing (the database gone) is logged, not raised.
 */
@Injectable()
export class ImportWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('ImportWorker');

  constructor(
    private readonly queue: JobQueue,
    private readonly processor: ImportProcessor,
    private readonly lanes: ImportLanesRepository,
    private readonly transactions: BackgroundTransactions,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.WORKER === 'off') return;
    for (let i = 0; i < this.config.WORKER_CONCURRENCY; i++) await this.startPoller();
    this.logger.log(
      `import workers started (${this.config.WORKER_CONCURRENCY} × batches of ${this.config.IMPORT_BATCH_SIZE})`,
    );
  }

  private async startPoller(): Promise<void> {
    const batchSize = this.config.IMPORT_BATCH_SIZE;
    const options = { batchSize, pollingIntervalSeconds: 0.5, includeMetadata: true as const };
    const id: string = await this.queue.boss.work<ImportJob>(
      IMPORT_QUEUE,
      options,
      async (jobs) => {
        await this.advanceClock(jobs);
        let unsettled = 0;
        for (const job of jobs) if (!(await this.handle(job))) unsettled++;
        // pg-boss completes the whole batch after this returns, a failed job with the rest if
        // its failure could not be recorded: failing the batch instead makes pg-boss retry
        // every job of it, and those already imported find nothing left to do.
        if (unsettled > 0) {
          throw new Error(`${unsettled} failed import attempt(s) could not be recorded`);
        }
        // A full batch means more are waiting: poll again at once instead of sleeping.
        if (jobs.length === batchSize) this.queue.boss.notifyWorker(id);
      },
    );
  }

  /**
   * The fair-queue clock moves to the batch's latest turn, so imports queued from now on
   * take their turns after it (import-lanes.repository.ts). Losing this update (the database
   * away) only lets a later import go a little earlier: it is logged, never raised.
   */
  private async advanceClock(jobs: Array<PgBoss.JobWithMetadata<ImportJob>>): Promise<void> {
    const latest = Math.max(...jobs.map((job) => tagOf(job.priority)));
    await this.lanes
      .served(this.transactions.db.shared(), latest)
      .catch((e: unknown) => this.logger.warn({ err: e }, 'import clock not advanced'));
  }

  /** False when the attempt failed and pg-boss could not be told (the database is away). */
  private async handle(job: PgBoss.JobWithMetadata<ImportJob>): Promise<boolean> {
    try {
      const imported = await this.processor.process(job.data);
      // A job can be delivered again (an attempt presumed lost); it then finds nothing to do.
      this.logger.debug(
        { importId: job.data.importId, retry: job.retryCount },
        imported ? 'imported' : 'already done',
      );
    } catch (error) {
      const final = job.retryCount >= job.retryLimit;
      this.logger.warn(
        { err: error, importId: job.data.importId, attempt: job.retryCount + 1, final },
        'import attempt failed',
      );
      // With the database down, neither of these may end the handler (or the process): the
      // attempt then stays active, expires (IMPORT_JOB_TIMEOUT_SECONDS) and is retried.
      await this.processor
        .recordFailure(job.data, error, final)
        .catch((e: unknown) =>
          this.logger.warn({ err: e, importId: job.data.importId }, 'import failure not recorded'),
        );
      // pg-boss keeps this in its own table: the public reason, never a driver message.
      return (
        this.queue.boss
          .fail(IMPORT_QUEUE, job.id, { message: publicReason(error) })
          // pg-boss 10 answers { affected } (its typings say void): 0 when nothing was failed.
          .then((result: unknown) => (result as { affected: number }).affected > 0)
          .catch((e: unknown) => {
            this.logger.warn({ err: e, importId: job.data.importId }, 'import retry not scheduled');
            return false;
          })
      );
    }
    return true;
  }
}

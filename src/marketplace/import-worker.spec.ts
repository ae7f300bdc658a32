import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import type { JobQueue } from '../queue/job-queue.service.js';
import type { BackgroundTransactions } from '../database/background-transactions.js';
import type { ImportLanesRepository } from './import-lanes.repository.js';
import type { ImportProcessor } from './import-processor.service.js';
import { ImportWorker } from './import-worker.service.js';

type Handler = (jobs: unknown[]) => Promise<void>;

/** The worker over a queue that records its handler and answers fail() with `affected`. */
function workerWith(failAffected: number | Error): { handler: () => Handler; failed: string[] } {
  let handler: Handler | undefined;
  const failed: string[] = [];
  const boss = {
    work: (_q: string, _o: unknown, h: Handler) => ((handler = h), Promise.resolve('w1')),
    notifyWorker: () => undefined,
    fail: (_q: string, id: string) => {
      failed.push(id);
      return failAffected instanceof Error
        ? Promise.reject(failAffected)
        : Promise.resolve({ affected: failAffected });
    },
  };
  const processor = {
    process: (data: { importId: number }) =>
      data.importId === 2 ? Promise.reject(new Error('down')) : Promise.resolve(true),
    recordFailure: () => Promise.reject(new Error('down')),
  };
  const config = { WORKER: 'on', WORKER_CONCURRENCY: 1, IMPORT_BATCH_SIZE: 25 } as AppConfig;
  const lanes = { served: () => Promise.resolve() };
  const transactions = { db: { shared: () => ({}) } };
  const worker = new ImportWorker(
    { boss } as unknown as JobQueue,
    processor as unknown as ImportProcessor,
    lanes as unknown as ImportLanesRepository,
    transactions as unknown as BackgroundTransactions,
    config,
  );
  void worker.onApplicationBootstrap();
  return { handler: () => handler!, failed };
}

const batch = [1, 2, 3].map((importId) => ({
  id: `job-${importId}`,
  data: { tenantId: 1, importId },
  retryCount: 0,
  retryLimit: 5,
  priority: -importId,
}));

describe('ImportWorker batch settlement', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('a failure pg-boss heard of: the batch returns (pg-boss completes the others)', async () => {
    const { handler, failed } = workerWith(1);
    await new Promise((resolve) => setImmediate(resolve));
    await expect(handler()(batch)).resolves.toBeUndefined();
    expect(failed).toEqual(['job-2']);
  });

  it.each([
    ['answered no job changed (the database away)', 0],
    ['rejected', new Error('connection terminated')],
  ])(
    'a failure whose fail() was %s: the batch fails, so the failed job is not completed',
    async (_, outcome) => {
      const { handler } = workerWith(outcome);
      await new Promise((resolve) => setImmediate(resolve));
      await expect(handler()(batch)).rejects.toThrow(
        '1 failed import attempt(s) could not be recorded',
      );
    },
  );
});

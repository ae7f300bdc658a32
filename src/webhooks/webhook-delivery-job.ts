import type PgBoss from 'pg-boss';
import { WEBHOOK_QUEUE } from '../queue/job-queue.service.js';
import type { DeliveryTarget } from './webhook-deliveries.repository.js';

export { WEBHOOK_QUEUE };

/**
 * "This delivery may be due": the job claims the delivery's next attempt in the database
 * before sending (webhook-delivery-slots), so a stale or duplicate job sends nothing.
 */
export interface DeliveryJob {
  tenantId: number;
  deliveryId: number;
}

/**
 * A delivery handed to the poller that released a slot; `claimed` when that slot was
 * transferred to it (the attempt is claimed, its target read).
 */
export interface HandedDelivery extends DeliveryJob {
  claimed?: { attempt: number; target: DeliveryTarget };
}

export interface DeliveryJobTiming {
  /** Not before this many seconds from the inserting transaction's `now()`. */
  inSeconds?: number;
  /** Woken from the line with a slot held for it: fetched before every other job. */
  woken?: boolean;
}

/**
 * pg-boss retries a job only when its worker died or hung (the handler never throws):
 * the delivery's own schedule (WEBHOOK_RETRY_SCHEDULE) is kept by sending the next job.
 * A delay is sent as an interval, which pg-boss adds to the database's `now()`: the clock
 * `next_attempt_at` is set by, so the job is never fetched before its attempt is due.
 */
export function deliveryJob(
  job: DeliveryJob,
  { inSeconds = 0, woken = false }: DeliveryJobTiming = {},
): PgBoss.JobInsert<DeliveryJob> {
  return {
    name: WEBHOOK_QUEUE,
    data: job,
    retryLimit: 3,
    retryDelay: 30,
    expireInSeconds: 60,
    ...(inSeconds > 0 ? { startAfter: `${inSeconds} seconds` } : {}),
    ...(woken ? { priority: 1 } : {}),
  };
}

import type PgBoss from 'pg-boss';
import { WEBHOOK_QUEUE } from '../queue/job-queue.service.js';

export { WEBHOOK_QUEUE };

/** One attempt at a delivery; `attempt` = attempts made before it (a stale job does nothing). */
export interface DeliveryJob {
  tenantId: number;
  deliveryId: number;
  attempt: number;
}

/**
 * pg-boss retries a job only when its worker died or hung (the handler never throws):
 * the delivery's own schedule (WEBHOOK_RETRY_SCHEDULE) is kept by sending the next job.
 */
export function deliveryJob(
  job: DeliveryJob,
  startAfterSeconds = 0,
): PgBoss.JobInsert<DeliveryJob> {
  return {
    name: WEBHOOK_QUEUE,
    data: job,
    retryLimit: 3,
    retryDelay: 30,
    expireInSeconds: 60,
    ...(startAfterSeconds > 0
      ? { startAfter: new Date(Date.now() + startAfterSeconds * 1000).toISOString() }
      : {}),
  };
}

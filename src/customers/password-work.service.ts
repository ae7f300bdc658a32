import { Injectable } from '@nestjs/common';
import { rateLimited } from '../common/rate-limit/rate-limit-rule.js';
import { WorkQueue } from '../common/work-queue.js';
import { AppConfig } from '../config/app-config.js';
import { PasswordHasher } from './password-hasher.js';

/** Queued argon2 jobs per lane beyond those running; more are refused with 429 at once. */
const MAX_WAITING_VERIFY = 64;
const MAX_WAITING_HASH = 16;
/** One app's share of a lane (running + waiting): five apps are needed to fill one. */
const PER_APP_VERIFY = 16;
const PER_APP_HASH = 4;

/** A bounded lane where no single app may hold more than its share. */
class FairLane {
  private readonly queue: WorkQueue;
  private readonly inFlight = new Map<number, number>();

  constructor(
    concurrency: number,
    maxWaiting: number,
    private readonly perApp: number,
    private readonly busy: () => Error,
  ) {
    this.queue = new WorkQueue(concurrency, maxWaiting, busy);
  }

  async run<T>(appId: number, task: () => Promise<T>): Promise<T> {
    const held = this.inFlight.get(appId) ?? 0;
    if (held >= this.perApp) throw this.busy();
    this.inFlight.set(appId, held + 1);
    try {
      return await this.queue.run(task);
    } finally {
      const left = (this.inFlight.get(appId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(appId);
      else this.inFlight.set(appId, left);
    }
  }
}

/**
 * argon2 is the one deliberately expensive thing the service does, on libuv's small thread
 * pool. Two bounded lanes keep it from being a lever: logins verify in their own lane, and
 * registrations (and password changes) hash in a lane of one, so a burst of registrations
 * cannot starve logins; a full lane answers 429 instead of queueing without end; and each
 * app holds at most a share of a lane, so one tenant's burst cannot refuse another's logins.
 * Per process: it protects this process's CPU.
 */
@Injectable()
export class PasswordWork {
  private readonly verifyLane: FairLane;
  private readonly hashLane: FairLane;

  constructor(
    private readonly hasher: PasswordHasher,
    config: AppConfig,
  ) {
    const busy = (policy: string, queued: number) => () =>
      rateLimited({ policy, limit: queued, windowSeconds: 1 }, 1);
    this.verifyLane = new FairLane(
      config.PASSWORD_HASH_CONCURRENCY,
      MAX_WAITING_VERIFY,
      PER_APP_VERIFY,
      busy('password-verify', MAX_WAITING_VERIFY),
    );
    this.hashLane = new FairLane(
      1,
      MAX_WAITING_HASH,
      PER_APP_HASH,
      busy('password-hash', MAX_WAITING_HASH),
    );
  }

  /** `appId` is whose share the work counts against (0: the service itself). */
  verify(appId: number, hash: string, password: string): Promise<boolean> {
    return this.verifyLane.run(appId, () => this.hasher.verify(hash, password));
  }

  hash(appId: number, password: string): Promise<string> {
    return this.hashLane.run(appId, () => this.hasher.hash(password));
  }

  needsRehash(hash: string): boolean {
    return this.hasher.needsRehash(hash);
  }
}

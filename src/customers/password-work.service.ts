import { Injectable } from '@nestjs/common';
import { rateLimited } from '../common/rate-limit/rate-limit-rule.js';
import { WorkQueue } from '../common/work-queue.js';
import { AppConfig } from '../config/app-config.js';
import { PasswordHasher } from './password-hasher.js';

/** Queued argon2 jobs per lane beyond those running; more are refused with 429 at once. */
const MAX_WAITING_VERIFY = 64;
const MAX_WAITING_HASH = 16;

/**
 * argon2 is the one deliberately expensive thing the service does, on libuv's small thread
 * pool. Two bounded lanes keep it from being a lever: logins verify in their own lane, and
 * registrations (and password changes) hash in a lane of one, so a burst of registrations
 * cannot starve logins, and a full lane answers 429 instead of queueing without end.
 */
@Injectable()
export class PasswordWork {
  private readonly verifyLane: WorkQueue;
  private readonly hashLane: WorkQueue;

  constructor(
    private readonly hasher: PasswordHasher,
    config: AppConfig,
  ) {
    const busy = (policy: string, queued: number) => () =>
      rateLimited({ policy, limit: queued, windowSeconds: 1 }, 1);
    this.verifyLane = new WorkQueue(
      config.PASSWORD_HASH_CONCURRENCY,
      MAX_WAITING_VERIFY,
      busy('password-verify', MAX_WAITING_VERIFY),
    );
    this.hashLane = new WorkQueue(1, MAX_WAITING_HASH, busy('password-hash', MAX_WAITING_HASH));
  }

  verify(hash: string, password: string): Promise<boolean> {
    return this.verifyLane.run(() => this.hasher.verify(hash, password));
  }

  hash(password: string): Promise<string> {
    return this.hashLane.run(() => this.hasher.hash(password));
  }

  needsRehash(hash: string): boolean {
    return this.hasher.needsRehash(hash);
  }
}

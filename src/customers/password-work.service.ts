import { Injectable } from '@nestjs/common';
import { rateLimited } from '../rate-limit/rate-limit-rule.js';
import { FairWorkQueue, type WorkOwner, type WorkShares } from '../common/work-queue.js';
import { AppConfig } from '../config/app-config.js';
import { PasswordHasher } from './password-hasher.js';

/** Queued argon2 jobs per lane beyond those running; more are refused with 429 at once. */
const MAX_WAITING_VERIFY = 64;
const MAX_WAITING_HASH = 16;

/** The service's own work (the dummy hash at start-up): an owner no tenant or app shares. */
export const SERVICE_WORK: WorkOwner = { tenantId: 0, appId: 0 };

/**
 * A tenant holds at most half a lane, and each of its apps at most half of that: however many
 * apps one tenant floods with, the other half stays open to every other tenant. With 2
 * running and 64 waiting: 33 places per tenant, 16 per app.
 */
function sharesOf(places: number): WorkShares {
  const perTenant = Math.max(1, Math.floor(places / 2));
  return { perTenant, perApp: Math.max(1, Math.floor(perTenant / 2)) };
}

/**
 * argon2 is the one deliberately expensive thing the service does, on libuv's small thread
 * pool. Two bounded lanes keep it from being a lever: logins verify in their own lane, and
 * registrations (and password changes) hash in a lane of one, so a burst of registrations
 * cannot starve logins; a full lane answers 429 instead of queueing without end. Each lane is
 * shared by tenant first, then by app (FairWorkQueue): a tenant's share is bounded, and a
 * freed slot goes round-robin between tenants, so no number of one tenant's apps can make
 * another tenant's logins answer 429 or wait behind its backlog. Per process: it protects
 * this process's CPU.
 */
@Injectable()
export class PasswordWork {
  private readonly verifyLane: FairWorkQueue;
  private readonly hashLane: FairWorkQueue;

  constructor(
    private readonly hasher: PasswordHasher,
    config: AppConfig,
  ) {
    const busy = (policy: string, queued: number) => () =>
      rateLimited({ policy, limit: queued, windowSeconds: 1 }, 1);
    const verifiers = config.PASSWORD_HASH_CONCURRENCY;
    this.verifyLane = new FairWorkQueue(
      verifiers,
      MAX_WAITING_VERIFY,
      sharesOf(verifiers + MAX_WAITING_VERIFY),
      busy('password-verify', MAX_WAITING_VERIFY),
    );
    this.hashLane = new FairWorkQueue(
      1,
      MAX_WAITING_HASH,
      sharesOf(1 + MAX_WAITING_HASH),
      busy('password-hash', MAX_WAITING_HASH),
    );
  }

  /** `owner` is whose shares the work counts against: the request's tenant and app. */
  verify(owner: WorkOwner, hash: string, password: string): Promise<boolean> {
    return this.verifyLane.run(owner, () => this.hasher.verify(hash, password));
  }

  hash(owner: WorkOwner, password: string): Promise<string> {
    return this.hashLane.run(owner, () => this.hasher.hash(password));
  }

  needsRehash(hash: string): boolean {
    return this.hasher.needsRehash(hash);
  }
}

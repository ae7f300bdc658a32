import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdempotencyStore } from './idempotency.store.js';

const PURGE_EVERY_MS = 15 * 60 * 1000;

/** Deletes expired keys in the background; expired keys are also ignored when looked up. */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPurger');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly dataSource: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    try {
      const purged = await this.store.purgeExpired(this.dataSource.manager);
      if (purged > 0) this.logger.log(`purged ${purged} expired idempotency keys`);
      return purged;
    } catch (error) {
      this.logger.warn({ err: error }, 'idempotency purge failed; retrying at the next interval');
      return 0;
    }
  }
}

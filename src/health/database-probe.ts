import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { GuardedClient } from '../database/guarded-client.js';

/** A readiness answer must come quickly, whatever the database does. */
export const PROBE_TIMEOUT_MS = 1_000;
/**
 * A ping's answer serves every probe for this long, and probes that arrive while one is in
 * flight share it: a flood of unauthenticated probes costs one round trip per interval and
 * never queues the load balancer's own probe behind it.
 */
const ANSWER_REUSE_MS = 250;

/**
 * Readiness checks on a connection of their own: a flood of requests that holds every
 * connection of the request pool must not make a healthy database look down (a load
 * balancer would pull the instance, and every other tenant with it). A probe that fails or
 * times out drops its connection, so the first probe after the database returns connects
 * afresh and answers.
 */
@Injectable()
export class DatabaseProbe implements OnApplicationShutdown {
  private readonly pool: pg.Pool;
  private last?: { at: number; answer: Promise<void>; settled: boolean };

  constructor(dataSource: DataSource) {
    this.pool = new pg.Pool({
      connectionString: (dataSource.options as { url: string }).url,
      max: 1,
      application_name: 'storefront-health',
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      // Client side, for a server that never answers; server side, for one that is slow.
      query_timeout: PROBE_TIMEOUT_MS,
      statement_timeout: PROBE_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      Client: GuardedClient,
    });
    this.pool.on('error', () => undefined); // an idle probe connection lost: the next probe reconnects
  }

  /** Resolves when the database answered within PROBE_TIMEOUT_MS, at most ANSWER_REUSE_MS ago. */
  ping(): Promise<void> {
    const now = Date.now();
    const last = this.last;
    if (last && (!last.settled || now - last.at < ANSWER_REUSE_MS)) return last.answer;
    const answer = this.pool.query('SELECT 1').then(() => undefined);
    const current = { at: now, answer, settled: false };
    // Its callers see its outcome; the probe only notes that it is over.
    answer.then(
      () => (current.settled = true),
      () => (current.settled = true),
    );
    this.last = current;
    return answer;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}

import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { PeriodicRun } from '../common/periodic-run.js';
import { BackgroundTransactions } from '../common/background-transactions.js';
import { AppConfig } from '../config/app-config.js';
import { entitlementPairs } from './event-entitlements.js';
import { WebhookDeliverySlots } from './webhook-delivery-slots.service.js';

/** Events turned into deliveries per transaction. */
const BATCH = 500;

/**
 * Follows the event log, in the feed's order and with its commit rule (only events of
 * transactions below the snapshot's xmin), from a position kept in `webhook_dispatch`: each
 * batch makes the deliveries of the matching active endpoints (in their endpoint's line),
 * wakes as many as the free slots take (webhook-delivery-slots) and moves the position in
 * one transaction, so a crash repeats a batch or loses nothing, and the
 * unique (endpoint, event) keeps a repeat from delivering twice. Only endpoints of active
 * apps entitled to the event type get one (event-entitlements.ts). Every worker process polls;
 * the row lock (SKIP LOCKED) lets one dispatch at a time and the others return at once.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private periodic?: PeriodicRun;

  constructor(
    private readonly transactions: BackgroundTransactions,
    private readonly config: AppConfig,
    private readonly slots: WebhookDeliverySlots,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WORKER === 'off') return;
    this.periodic = new PeriodicRun(
      this.config.WEBHOOK_DISPATCH_INTERVAL_MS,
      () => this.dispatchAll(),
      (error) => this.logger.warn({ err: error }, 'webhook dispatch failed'),
    );
    this.periodic.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.periodic?.stop();
  }

  /** Dispatches until the log has nothing more to give now; returns the events passed. */
  async dispatchAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const passed = await this.dispatchBatch();
      total += passed;
      if (passed < BATCH) return total;
    }
  }

  private dispatchBatch(): Promise<number> {
    return this.transactions.runWithManager(async (m) => {
      const held: Array<{ txid: string; seq: number }> = await m.query(
        'SELECT txid::text AS txid, seq FROM webhook_dispatch FOR UPDATE SKIP LOCKED',
      );
      if (held.length === 0) return 0; // another process dispatches
      // The position as parameters: a row comparison with constants is an index condition.
      const [row]: Array<{ events: number; tenants: number[] }> = await m.query(
        `WITH batch AS (
             SELECT e.tenant_id, e.seq, e.txid, e.type, e.app_id, e.created_at
             FROM events e
             WHERE (e.txid, e.seq) > ($2::xid8, $3::bigint)
               AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
             ORDER BY e.txid, e.seq LIMIT $1),
           created AS (
             INSERT INTO webhook_deliveries
               (tenant_id, endpoint_id, event_seq, next_attempt_at, waiting_since)
             SELECT b.tenant_id, ep.id, b.seq, now(), now()
             FROM batch b JOIN webhook_endpoints ep
               ON ep.tenant_id = b.tenant_id AND ep.active AND b.type = ANY (ep.event_types)
              AND (b.app_id IS NULL OR b.app_id = ep.app_id) AND ep.created_at <= b.created_at
             JOIN apps a ON a.tenant_id = ep.tenant_id AND a.id = ep.app_id AND a.active
             WHERE b.app_id IS NOT NULL OR EXISTS (
               SELECT 1 FROM unnest($4::text[], $5::text[]) AS g(type, scope)
               WHERE g.type = b.type AND g.scope = ANY (a.approved_scopes))
             ON CONFLICT DO NOTHING
             RETURNING tenant_id),
           last AS (SELECT txid, seq FROM batch ORDER BY txid DESC, seq DESC LIMIT 1),
           moved AS (UPDATE webhook_dispatch SET txid = last.txid, seq = last.seq FROM last)
           SELECT (SELECT count(*)::int FROM batch) AS events,
             COALESCE((SELECT array_agg(DISTINCT tenant_id) FROM created), '{}') AS tenants`,
        [BATCH, held[0].txid, held[0].seq, ...entitlementPairs()],
      );
      if (row.tenants.length > 0) {
        await this.slots.lock(m, row.tenants);
        await this.slots.wake(m, row.tenants);
      }
      return row.events;
    });
  }
}

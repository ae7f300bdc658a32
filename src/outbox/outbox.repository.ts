import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { EventType } from './event-types.js';

export interface NewEvent {
  type: EventType;
  /** `data.object` and, per type, more fields (`previous_status`). */
  data: { object: unknown } & Record<string, unknown>;
  /** Set: the event is that app's own (its admin actions, its endpoints), seen by it alone. */
  appId?: number | null;
  /** Set: the event belongs to this order's timeline. */
  orderId?: number | null;
}

/**
 * Writes events in the caller's unit of work (the transactional outbox): an event exists
 * exactly when the change it describes committed. Every writer calls it; it calls nobody and
 * imports nothing above common/ and database/. The events are the tenant's the path is bound to.
 */
@Injectable()
export class OutboxRepository {
  async append(db: TenantSql, events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const data = events.map((e) => JSON.stringify(e.data));
    await db.rows(
      `INSERT INTO events (tenant_id, type, app_id, order_id, data, size)
       SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::jsonb[], $6::int[])`,
      [
        events.map((e) => e.type),
        events.map((e) => e.appId ?? null),
        events.map((e) => e.orderId ?? null),
        data,
        // What pages of the feed are cut by (events.repository.ts).
        data.map((json) => Buffer.byteLength(json)),
      ],
      true,
    );
  }
}

import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../database/prepared-query.js';
import { requireTenant } from '../common/tenant-scope.js';
import type { EventType } from './event-types.js';

export interface NewEvent {
  tenantId: number;
  type: EventType;
  /** `data.object` and, per type, more fields (`previous_status`). */
  data: { object: unknown } & Record<string, unknown>;
  /** Set: the event is that app's own (its admin actions, its endpoints), seen by it alone. */
  appId?: number | null;
  /** Set: the event belongs to this order's timeline. */
  orderId?: number | null;
}

/**
 * Writes events in the caller's transaction (the transactional outbox): an event exists
 * exactly when the change it describes committed. Writers call it; it calls nobody.
 */
@Injectable()
export class EventLog {
  async append(m: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const event of events) requireTenant(event.tenantId);
    await preparedQuery(
      m,
      `INSERT INTO events (tenant_id, type, app_id, order_id, data)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::jsonb[])`,
      [
        events.map((e) => e.tenantId),
        events.map((e) => e.type),
        events.map((e) => e.appId ?? null),
        events.map((e) => e.orderId ?? null),
        events.map((e) => JSON.stringify(e.data)),
      ],
    );
  }
}

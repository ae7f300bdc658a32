import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** pg-boss priorities are 4-byte integers: past this virtual time, jobs keep the lowest. */
const LOWEST_PRIORITY = -2_147_483_648;

/**
 * Fair queueing of imports across tenants (start-time fair queueing on pg-boss priorities).
 * Each import gets a virtual time: one past its tenant's previous import, and never below the
 * clock, the virtual time of the last import the workers took. pg-boss hands out the highest
 * priority first, and a job's priority is minus its virtual time, so the workers serve the
 * tenants' lanes in turn: a tenant that queued 10,000 imports has them spread over the next
 * 10,000 turns, and another tenant's import, queued later, is taken at the next turn. O(1)
 * per import: one row per tenant, one row for the clock, no count of anyone's backlog.
 */
@Injectable()
export class ImportLanesRepository {
  /** The virtual time of the tenant's next import, in the caller's unit of work. */
  async nextTag(db: TenantSql): Promise<number> {
    const [row] = await db.rows<{ tag: number }>(
      `INSERT INTO import_lanes AS lane (tenant_id, last_tag)
       VALUES ($1, COALESCE((SELECT served_tag FROM import_clock), 0) + 1)
       ON CONFLICT (tenant_id) DO UPDATE
         SET last_tag = greatest(lane.last_tag, (SELECT served_tag FROM import_clock)) + 1
       RETURNING last_tag AS tag`,
    );
    return row.tag;
  }

  /** Moves the clock on to `tag` (a batch's latest), never back. */
  async served(db: SharedSql, tag: number): Promise<void> {
    await db.rows('UPDATE import_clock SET served_tag = $1 WHERE served_tag < $1', [tag]);
  }
}

export function priorityOf(tag: number): number {
  return Math.max(-tag, LOWEST_PRIORITY);
}

export function tagOf(priority: number): number {
  return -priority;
}

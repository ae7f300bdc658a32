import { Injectable } from '@nestjs/common';
import type { Actor } from './actor.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

export interface AuditEvent {
  action: string;
  targetType: string;
  targetId: string | number;
  /** Never a secret: only what an auditor may read. */
  details?: Record<string, unknown>;
}

/** The audit log, written in the admin change's own unit of work: both commit or neither. */
@Injectable()
export class AuditRepository {
  async record(db: TenantSql, by: Actor, event: AuditEvent): Promise<void> {
    await db.rows(
      `INSERT INTO audit_log (tenant_id, actor, action, target_type, target_id, details)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        by.actor,
        event.action,
        event.targetType,
        String(event.targetId),
        JSON.stringify(event.details ?? {}),
      ],
    );
  }
}

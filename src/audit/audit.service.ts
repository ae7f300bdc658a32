import { Injectable } from '@nestjs/common';
import { userInfo } from 'node:os';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditLogEntry } from './audit-log.entity.js';

export interface AuditEvent {
  tenantId: number | null;
  action: string;
  targetType: string;
  targetId: string | number;
  details?: Record<string, unknown>;
}

/** Who did it: admin actions come from the CLI, run by an operating-system user. */
function currentActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

@Injectable()
export class AuditService {
  constructor(private readonly dataSource: DataSource) {}

  /** Writes in the caller's transaction when given one, so the record commits with the change. */
  async record(event: AuditEvent, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.insert(
      AuditLogEntry,
      manager.create(AuditLogEntry, {
        tenantId: event.tenantId,
        actor: currentActor(),
        action: event.action,
        targetType: event.targetType,
        targetId: String(event.targetId),
        details: event.details ?? {},
      }),
    );
  }
}

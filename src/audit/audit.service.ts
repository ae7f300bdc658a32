import { Injectable } from '@nestjs/common';
import { userInfo } from 'node:os';
import { Transactions } from '../common/transactions.js';
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
  constructor(private readonly transactions: Transactions) {}

  /** Writes in the caller's transaction (Transactions.run), so it commits with the change. */
  async record(event: AuditEvent): Promise<void> {
    const manager = this.transactions.legacyManager;
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

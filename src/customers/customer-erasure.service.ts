import { Injectable } from '@nestjs/common';
import type { Actor } from '../audit/actor.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { CustomerSessions } from '../auth/customer-sessions.service.js';
import { ServerSecrets } from '../config/server-secrets.js';
import { Transactions } from '../database/transactions.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import { CustomerErasureRepository } from './customer-erasure.repository.js';
import type { ErasureDto } from './dto/erasure.dto.js';
import { emailHash } from './email-hash.js';

/**
 * Erasure of a person (docs/BEHAVIOUR.md#customer-data-rights, GDPR art. 17), in one unit of
 * work: the customer's account, its sessions, refresh chains and tickets, every order of the
 * person, and every stored copy of them (event payloads, idempotent responses, import payloads;
 * webhook deliveries are built from the events when sent). Money, items, statuses and dates stay.
 */
@Injectable()
export class CustomerErasure {
  constructor(
    private readonly erasure: CustomerErasureRepository,
    private readonly sessions: CustomerSessions,
    private readonly audit: AuditRepository,
    private readonly events: OutboxRepository,
    private readonly transactions: Transactions,
    private readonly secrets: ServerSecrets,
  ) {}

  erase(by: Actor, tenantId: number, email: string): Promise<ErasureDto> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const hash = emailHash(this.secrets.pepper, tenantId, email);
      // Locks in the order of the paths it meets: imports (then their orders' customer),
      // tickets (then their customer), the customer, its chains and sessions, its orders.
      await this.erasure.lockImports(tenant, email);
      const seen = await this.erasure.customerByEmail(tenant, email, false);
      if (seen !== undefined) await this.erasure.deleteTickets(tenant, seen);
      const customerId = (await this.erasure.customerByEmail(tenant, email, true)) ?? null;
      if (customerId !== null) {
        // Registered between the two reads: its tickets are deleted under its lock.
        if (customerId !== seen) await this.erasure.deleteTickets(tenant, customerId);
        await this.sessions.endAll(db, tenantId, customerId);
        await this.erasure.eraseCustomer(tenant, customerId);
      }
      const orderIds = await this.erasure.redactOrders(tenant, email, customerId);
      await this.erasure.redactEvents(tenant, orderIds, customerId);
      await this.erasure.redactIdempotentResponses(tenant, orderIds);
      await this.erasure.redactImports(tenant, email, orderIds);
      await this.events.append(tenant, [
        { type: 'customer.erased', data: { object: { id: customerId } } },
      ]);
      await this.audit.record(tenant, by, {
        action: 'customer.erase',
        targetType: 'customer',
        targetId: customerId ?? '-',
        details: { email_hash: hash, orders_redacted: orderIds.length },
      });
      return { email_hash: hash, customer_id: customerId, orders_redacted: orderIds.length };
    });
  }
}

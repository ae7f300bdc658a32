import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { AppError } from '../common/errors/app-error.js';
import { Transactions } from '../common/transactions.js';
import { legacyTenantSql } from '../database/sql/db.js';
import { OrderWriter } from '../orders/order-writer.js';
import { CustomersRepository, type CustomerRow } from './customers.repository.js';

/**
 * Trust in an email address, one way for the API (verify-email) and support staff (CLI):
 * the customer is marked verified and, in the same transaction, the tenant's unlinked orders
 * placed with that email become theirs (through the order writer).
 */
@Injectable()
export class CustomerVerification {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly orders: OrderWriter,
    private readonly transactions: Transactions,
    private readonly audit: AuditService,
  ) {}

  /**
   * Support staff checked the address by other means (CLI `customer verify`): the same
   * verification and linking, with an audit record, in one transaction.
   */
  verifyByStaff(
    tenantId: number,
    email: string,
  ): Promise<{ customer: CustomerRow; linkedOrders: number }> {
    return this.transactions.runWithManager(async (m) => {
      const found = await this.customers.byEmail(m, tenantId, email);
      if (!found)
        throw new AppError('not_found', `no customer with this email in tenant ${tenantId}`);
      const result = await this.verify(m, tenantId, found.id);
      await this.audit.record({
        tenantId,
        action: 'customer.verify',
        targetType: 'customer',
        targetId: found.id,
        details: { linked_orders: result.linkedOrders },
      });
      return result;
    });
  }

  async verify(
    m: EntityManager,
    tenantId: number,
    customerId: number,
  ): Promise<{ customer: CustomerRow; linkedOrders: number }> {
    const customer = await this.customers.markVerified(m, tenantId, customerId);
    if (!customer) throw new AppError('not_found', 'customer not found');
    const linkedOrders = await this.orders.linkToCustomer(
      legacyTenantSql(m, tenantId),
      customer.id,
      customer.email,
    );
    return { customer, linkedOrders };
  }
}

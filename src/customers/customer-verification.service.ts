import { Injectable } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.js';
import type { AdminContext } from '../common/admin-context.js';
import { AppError } from '../common/errors/app-error.js';
import { Transactions } from '../database/transactions.js';
import type { Db } from '../database/sql/db.js';
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
    private readonly audit: AuditRepository,
  ) {}

  /**
   * Support staff checked the address by other means (CLI `customer verify`): the same
   * verification and linking, with an audit record naming `admin`, in one unit of work.
   */
  verifyByStaff(
    admin: AdminContext,
    tenantId: number,
    email: string,
  ): Promise<{ customer: CustomerRow; linkedOrders: number }> {
    return this.transactions.run(async (db) => {
      const tenant = db.tenant(tenantId);
      const found = await this.customers.byEmail(tenant, email);
      if (!found)
        throw new AppError('not_found', `no customer with this email in tenant ${tenantId}`);
      const result = await this.verify(db, tenantId, found.id);
      await this.audit.record(tenant, admin, {
        action: 'customer.verify',
        targetType: 'customer',
        targetId: found.id,
        details: { linked_orders: result.linkedOrders },
      });
      return result;
    });
  }

  /** In the caller's unit of work. */
  async verify(
    db: Db,
    tenantId: number,
    customerId: number,
  ): Promise<{ customer: CustomerRow; linkedOrders: number }> {
    const tenant = db.tenant(tenantId);
    const customer = await this.customers.markVerified(tenant, customerId);
    if (!customer) throw new AppError('not_found', 'customer not found');
    const linkedOrders = await this.orders.linkToCustomer(tenant, customer.id, customer.email);
    return { customer, linkedOrders };
  }
}

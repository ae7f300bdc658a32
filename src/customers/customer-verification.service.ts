import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppError } from '../common/errors/app-error.js';
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
  ) {}

  async verify(
    m: EntityManager,
    tenantId: number,
    customerId: number,
  ): Promise<{ customer: CustomerRow; linkedOrders: number }> {
    const customer = await this.customers.markVerified(m, tenantId, customerId);
    if (!customer) throw new AppError('not_found', 'customer not found');
    const linkedOrders = await this.orders.linkToCustomer(m, tenantId, customer.id, customer.email);
    return { customer, linkedOrders };
  }
}

import { Injectable } from '@nestjs/common';
import type { AppContext } from '../auth/request-context.js';
import { ReadReplicas } from '../database/read-replicas.service.js';
import { toFulfillmentDto, toRefundDto } from '../orders/operations/operations.mapper.js';
import { toOrderDto } from '../orders/order.mapper.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { toCustomerDto } from './customer.mapper.js';
import { CustomerDataRepository } from './customer-data.repository.js';
import { CustomersRepository } from './customers.repository.js';
import type { DataExportDto } from './dto/data-export.dto.js';

/** A person's rights over the data a store holds about them (docs/BEHAVIOUR.md#customer-data-rights). */
@Injectable()
export class CustomerData {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly data: CustomerDataRepository,
    private readonly replicas: ReadReplicas,
    private readonly expensive: ExpensiveRequests,
  ) {}

  /**
   * Everything the tenant holds about the person with `email`: the registered customer and
   * every order with that email or of that customer. An expensive request (its read of every
   * order of the person can be long).
   */
  export(ctx: AppContext, email: string): Promise<DataExportDto> {
    return this.expensive.run(ctx, () => this.exportOf(ctx.tenantId, email));
  }

  /** The same, for support staff (CLI `customer export`): a request that came by mail or phone. */
  async exportOf(tenantId: number, email: string): Promise<DataExportDto> {
    // A replica may serve it (CONTRACT 8): both reads on the same one.
    const { customer, orders } = await this.replicas.read(async (db) => {
      const tenant = db.tenant(tenantId);
      const found = await this.customers.byEmail(tenant, email);
      return {
        customer: found,
        orders: await this.data.ordersOf(tenant, email, found?.id ?? null),
      };
    });
    return {
      email,
      customer: customer ? toCustomerDto(customer) : null,
      orders: orders.map((row) =>
        Object.assign(toOrderDto(row, row.items ?? []), {
          fulfillments: row.fulfillments.map(toFulfillmentDto),
          refunds: row.refunds.map(toRefundDto),
        }),
      ),
      generated_at: new Date().toISOString(),
    };
  }
}

import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { OutboxRepository } from '../outbox/outbox.repository.js';
import type { OrderDraft } from './order-draft.js';
import { toOrderDto } from './order.mapper.js';
import type { OrderDto } from './dto/order.dto.js';
import { OrdersRepository, type WrittenOrder } from './orders.repository.js';

/** PostgreSQL's name for the orders → customers foreign key. */
const CUSTOMER_FOREIGN_KEY = 'orders_tenant_id_customer_id_fkey';

/**
 * The one place orders are written one by one (API create, marketplace import; `seed orders`
 * writes its generated batches, without events, through SeedOrdersRepository). In the
 * caller's unit of work: the order with its lines in one statement, then its `order.created`
 * event.
 */
@Injectable()
export class OrderWriter {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly events: OutboxRepository,
  ) {}

  /** The order as the API shows it, mapped once: for its event and for the caller. */
  async write(db: TenantSql, draft: OrderDraft): Promise<OrderDto> {
    const { link } = draft;
    let written: WrittenOrder | undefined;
    try {
      written = await this.orders.insert(db, draft);
    } catch (error) {
      if (
        link.kind === 'id' &&
        (error as { constraint?: string }).constraint === CUSTOMER_FOREIGN_KEY
      ) {
        throw unknownCustomer(link.id);
      }
      throw error;
    }
    if (!written) throw new Error(`tenant ${db.tenantId} does not exist`);
    const order = toOrderDto(written.order, written.items);
    await this.events.append(db, [
      { type: 'order.created', orderId: order.id, data: { object: order } },
    ]);
    return order;
  }

  /**
   * Links the tenant's orders placed with `email` and no customer (guest orders, imports,
   * earlier ones too) to the customer who just proved the address is theirs. In the
   * caller's unit of work; returns how many orders it linked.
   */
  linkToCustomer(db: TenantSql, customerId: number, email: string): Promise<number> {
    return this.orders.linkToCustomer(db, customerId, email);
  }
}

function unknownCustomer(id: number): AppError {
  return new AppError('unknown_customer', `customer ${id} is not a customer of this tenant`, {
    details: [{ field: 'customer.id', message: 'is not a customer of this tenant' }],
  });
}

import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import {
  preconditionFailed,
  preconditionHolds,
  type VersionPrecondition,
} from '../common/http/entity-tags.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { type NewEvent, OutboxRepository } from '../outbox/outbox.repository.js';
import type { OrderDraft } from './order-draft.js';
import { inventoryChanged } from '../products/product-events.js';
import { type StockDelta, StockRepository } from '../products/stock.repository.js';
import type { StatusMove } from './order-operations.js';
import { toOrderDto } from './order.mapper.js';
import type { OrderDto } from './dto/order.dto.js';
import {
  type ItemRow,
  type LineChange,
  type OrderState,
  type OrderWithItemsRow,
  OrdersRepository,
  type SavedChange,
} from './orders.repository.js';

/** Who changes an order, and on what condition (`If-Match`). */
export interface ChangeRequest {
  db: TenantSql;
  orderId: number;
  actor: string;
  ifMatch?: VersionPrecondition;
}

/**
 * What one change makes of a locked order: its new state and lines, the status moves it
 * makes, and the events it records beyond one `order.status_changed` per move (built once
 * the new order is known). Undefined: nothing changes (a no-op `PATCH`).
 */
export interface ChangePlan {
  next: OrderState;
  lines?: readonly LineChange[];
  moves: readonly StatusMove[];
  /** Records written with the change (a fulfillment, a refund), and their events. */
  record?: (db: TenantSql, order: OrderDto, saved: SavedChange) => Promise<RecordedChange>;
  /** Events that describe the change itself (`order.updated`), before the status moves'. */
  events?: (order: OrderDto) => NewEvent[];
  /** Stock the change gives back (negative units per product), and why. */
  stock?: { delta: StockDelta; reason: 'cancellation' | 'refund' };
}

export interface RecordedChange {
  record: unknown;
  events: NewEvent[];
}

export interface ChangedOrder<R = undefined> {
  order: OrderDto;
  /** The fulfillment or refund the change recorded. */
  record: R;
}

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
    private readonly stock: StockRepository,
  ) {}

  /**
   * The order as the API shows it, mapped once: for its events and for the caller. `more`:
   * events that need the new order (its stock's), written with `order.created`.
   */
  async write(
    db: TenantSql,
    draft: OrderDraft,
    more?: (order: OrderDto) => NewEvent[],
  ): Promise<OrderDto> {
    const { link } = draft;
    const written = await this.orders.insert(db, draft);
    if (!written) throw new Error(`tenant ${db.tenantId} does not exist`);
    // Not (or no longer) a customer: the statement linked no one; the unit of work rolls back.
    if (link.kind === 'id' && written.order.customer_id === null) throw unknownCustomer(link.id);
    const linked = written.order.customer_id;
    if (linked !== null && !(await this.orders.linkedCustomerIsLive(db, linked))) {
      // The customer was erased while the statement waited for it: by id, no such customer;
      // by email, a retry writes the order unlinked.
      if (link.kind === 'id') throw unknownCustomer(link.id);
      throw new AppError(
        'unavailable',
        'The customer of this order was erased while it was written; retry it',
        { headers: { 'retry-after': '1' } },
      );
    }
    const order = toOrderDto(written.order, written.items);
    await this.events.append(db, [
      { type: 'order.created', orderId: order.id, data: { object: order } },
      ...(more?.(order) ?? []),
    ]);
    return order;
  }

  /**
   * Every change of an existing order, whoever makes it (the API, the CLI): the order is
   * locked, `If-Match` checked against its version, `plan` decides on the state it read, and
   * the new state, its lines, its status history, `version` + 1, its records and its events
   * are written in the caller's unit of work. Changes of one order so run one at a time, each
   * on the state the one before left, and a plan's refusal writes nothing.
   */
  async change<R = undefined>(
    request: ChangeRequest,
    plan: (current: OrderWithItemsRow) => ChangePlan | undefined,
  ): Promise<ChangedOrder<R>> {
    const { db, orderId } = request;
    const current = await this.orders.lockWithItems(db, orderId);
    if (!current) throw orderNotFound(orderId);
    if (!preconditionHolds(request.ifMatch, current.version)) {
      throw preconditionFailed(`order ${orderId}`, current.version);
    }
    const items = current.items ?? [];
    const decided = plan(current);
    if (decided === undefined) {
      return { order: toOrderDto(current, items), record: undefined as R };
    }
    const lines = decided.lines ?? [];
    const saved = await this.orders.saveChange(
      db,
      decided.next,
      lines,
      decided.moves,
      request.actor,
    );
    const order = toOrderDto({ ...current, ...decided.next, ...saved }, withLines(items, lines));
    const events: NewEvent[] = decided.events?.(order) ?? [];
    let record: unknown;
    if (decided.record) {
      const recorded = await decided.record(db, order, saved);
      record = recorded.record;
      events.push(...recorded.events);
    }
    events.push(...statusEvents(order, decided.moves));
    if (decided.stock && decided.stock.delta.size > 0) {
      const moves = await this.stock.force(db, decided.stock.delta);
      events.push(...inventoryChanged(moves, decided.stock.reason, { orderId: order.id }));
    }
    await this.events.append(db, events);
    return { order, record: record as R };
  }

  /** Events of an order written beside a change that is not one of the order (new tracking). */
  appendEvents(db: TenantSql, events: readonly NewEvent[]): Promise<void> {
    return this.events.append(db, events);
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

export function orderNotFound(id: number): AppError {
  return new AppError('not_found', `order ${id} not found`);
}

/** The lines after a change: each changed line's new quantities. */
function withLines(items: readonly ItemRow[], lines: readonly LineChange[]): ItemRow[] {
  if (lines.length === 0) return [...items];
  const changed = new Map(lines.map((line) => [line.id, line]));
  return items.map((item) => {
    const line = changed.get(item.id);
    return line ? { ...item, ...line } : item;
  });
}

/**
 * One `order.status_changed` per move, in order. A change that moves twice (a fulfillment
 * that completes a paid order: paid → preparing → shipped) shows each step: the first
 * event's order is the same version with the status it passed through.
 */
function statusEvents(order: OrderDto, moves: readonly StatusMove[]): NewEvent[] {
  return moves.map((move, index) => ({
    type: 'order.status_changed',
    orderId: order.id,
    data: {
      object: index === moves.length - 1 ? order : Object.assign({}, order, { status: move.to }),
      previous_status: move.from,
    },
  }));
}

function unknownCustomer(id: number): AppError {
  return new AppError('unknown_customer', `customer ${id} is not a customer of this tenant`, {
    details: [{ field: 'customer.id', message: 'is not a customer of this tenant' }],
  });
}

import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { AppContext } from '../auth/request-context.js';
import { ReadReplicas } from '../database/read-replicas.service.js';
import { toFulfillmentDto, toRefundDto } from '../orders/operations/operations.mapper.js';
import { toOrderDto } from '../orders/order.mapper.js';
import { MAX_ORDER_JSON_BYTES } from '../orders/order-size.js';
import { ExpensiveRequests } from '../rate-limit/expensive-requests.js';
import { toCustomerDto } from './customer.mapper.js';
import {
  CustomerDataRepository,
  type PersonImportRow,
  type PersonOrderRow,
} from './customer-data.repository.js';
import { CustomersRepository } from './customers.repository.js';
import type { ExportedImportDto, ExportedOrderDto } from './dto/data-export.dto.js';

/**
 * Orders (or imports) read and written at a time: a person may have any number of them, and
 * the export holds one page in memory, never the whole answer.
 */
const EXPORT_PAGE = 10;

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
   * Everything the tenant holds about the person with `email` (the DataExportDto's JSON),
   * streamed: the registered customer, every order with that email or of that customer and
   * the imports of that email that have not become orders, a page at a time, the next page
   * read only once the client has taken the last one. An expensive request: it holds its
   * place, and one page's memory, until the answer is sent or the client is gone. The first
   * page is read before the answer starts, so a database that is down answers 503 in full.
   */
  async export(ctx: AppContext, email: string): Promise<Readable> {
    const leave = await this.expensive.hold(ctx, EXPORT_PAGE * MAX_ORDER_JSON_BYTES);
    try {
      const pieces = await this.pieces(ctx.tenantId, email);
      const stream = Readable.from(pieces, { objectMode: false });
      stream.once('close', leave);
      return stream;
    } catch (error) {
      leave();
      throw error;
    }
  }

  /** The same, for support staff (CLI `customer export`): a request that came by mail or phone. */
  async exportOf(tenantId: number, email: string): Promise<string> {
    let json = '';
    for await (const piece of await this.pieces(tenantId, email)) json += piece;
    return json;
  }

  /** The export's JSON text in pieces; its customer and first pages already read. */
  private async pieces(tenantId: number, email: string): Promise<AsyncGenerator<string>> {
    // A replica may serve it (CONTRACT 8), each page on whichever is in rotation then.
    const read = <T>(work: (db: Parameters<CustomerDataRepository['ordersOf']>[0]) => Promise<T>) =>
      this.replicas.read((db) => work(db.tenant(tenantId)));
    // The first pages of both in one read: a person with few orders is one read, one snapshot.
    const { customer, firstOrders, firstImports } = await read(async (db) => {
      const found = await this.customers.byEmail(db, email);
      return {
        customer: found,
        firstOrders: await this.data.ordersOf(db, email, found?.id ?? null, 0, EXPORT_PAGE),
        firstImports: await this.data.importsOf(db, email, 0, EXPORT_PAGE),
      };
    });
    const customerId = customer?.id ?? null;
    const generatedAt = new Date().toISOString();
    const data = this.data;
    async function* pages<R extends { id: number }>(
      first: R[],
      next: (afterId: number) => Promise<R[]>,
      render: (row: R) => unknown,
    ): AsyncGenerator<string> {
      let rows = first;
      let separator = '';
      for (;;) {
        for (const row of rows) {
          yield separator + JSON.stringify(render(row));
          separator = ',';
        }
        if (rows.length < EXPORT_PAGE) return;
        rows = await next(rows.at(-1)!.id);
      }
    }
    return (async function* () {
      yield (
        `{"email":${JSON.stringify(email)},` +
        `"customer":${JSON.stringify(customer ? toCustomerDto(customer) : null)},"orders":[`
      );
      yield* pages(
        firstOrders,
        (after) => read((db) => data.ordersOf(db, email, customerId, after, EXPORT_PAGE)),
        toExportedOrder,
      );
      yield '],"imports":[';
      yield* pages(
        firstImports,
        (after) => read((db) => data.importsOf(db, email, after, EXPORT_PAGE)),
        toExportedImport,
      );
      yield `],"generated_at":"${generatedAt}"}`;
    })();
  }
}

function toExportedOrder(row: PersonOrderRow): ExportedOrderDto {
  return Object.assign(toOrderDto(row, row.items ?? []), {
    fulfillments: row.fulfillments.map(toFulfillmentDto),
    refunds: row.refunds.map(toRefundDto),
  });
}

function toExportedImport(row: PersonImportRow): ExportedImportDto {
  return {
    status: row.status,
    marketplace: row.marketplace,
    external_order_id: row.external_order_id,
    order_id: row.order_id,
    error: row.error,
    attempts: row.attempts,
    payload: row.payload,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

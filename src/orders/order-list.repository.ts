import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { OrderListSpec, PageWindow } from './order-list-query.js';
import { orderCountSql, orderListSql, orderMatchesUpToSql } from './order-list.sql.js';
import type { OrderScope } from './order-scope.js';
import { O_COLUMNS, type OrderWithItemsRow } from './orders.repository.js';

/** A list row: the order, its lines, its sort key as canonical UTC text with microseconds. */
export interface ListedOrderRow extends OrderWithItemsRow {
  sort_key: string;
  /** The list's total, when it was asked for. */
  total?: number;
}

/**
 * How far below the oldest open transaction the horizon stays. A transaction takes its
 * timestamp (`now()`, the `created_at` default) a moment before pg_stat_activity shows its
 * `xact_start`; an order it writes must still fall above the horizon. A second is far more
 * than that moment, and is all an ascending walk lags behind the present.
 */
export const LIST_HORIZON_MARGIN = '1 second';

/**
 * The list shapes requests mostly take (no filter but at most one status), run as prepared
 * statements; the open-ended rest of the filter combinations is planned per request.
 */
function isHotShape(spec: OrderListSpec): boolean {
  const { status, ...others } = spec.filters;
  return (status?.length ?? 0) <= 1 && Object.values(others).every((v) => v === undefined);
}

/** The order list's reads (order-list.sql.ts builds them), on the path's tenant. */
@Injectable()
export class OrderListRepository {
  /**
   * One page of the list in one query: each row with its lines, its `sort_key` and, with
   * `withTotal`, the list's total.
   */
  list(
    db: TenantSql,
    scope: OrderScope,
    spec: OrderListSpec,
    window: PageWindow,
    withTotal = false,
  ): Promise<ListedOrderRow[]> {
    const total = withTotal ? orderCountSql(scope, spec) : undefined;
    const { text, params } = orderListSql(scope, spec, O_COLUMNS, window, total);
    return db.rows<ListedOrderRow>(text, params, isHotShape(spec));
  }

  async count(db: TenantSql, scope: OrderScope, spec: OrderListSpec): Promise<number> {
    const { text, params } = orderCountSql(scope, spec);
    const rows = await db.rows<{ total: number }>(text, params, isHotShape(spec));
    return rows[0].total;
  }

  /** How many orders the spec selects, counted up to `cap` (order-list-query.ts rangeOf). */
  async countUpTo(
    db: TenantSql,
    scope: OrderScope,
    spec: OrderListSpec,
    cap: number,
  ): Promise<number> {
    const { text, params } = orderMatchesUpToSql(scope, spec, cap);
    const rows = await db.rows<{ matching: number }>(text, params);
    return rows[0].matching;
  }

  /**
   * The instant below which no order can still appear or change: every transaction that could
   * write a smaller `created_at` or `updated_at` has ended. `created_at` is the writing
   * transaction's start and `updated_at` is `clock_timestamp()` inside it, so both are at or
   * after the `xact_start` of a transaction still open. An ascending walk serves only orders
   * below this, so a transaction that commits late cannot land behind the walk (the keyset
   * trap); it delays the walk instead. Other databases of the server and this session are
   * left out; a role without pg_read_all_stats sees `xact_start` of its own role's sessions,
   * which are the ones writing orders. Canonical UTC text, as cursor keys are. Of the server,
   * not of a tenant: a shared statement.
   */
  async horizon(db: SharedSql): Promise<string> {
    return (await this.horizonAndPosition(db)).horizon;
  }

  /**
   * The horizon, and the primary's flushed WAL position taken after it (the CTE is
   * materialised first): every order below the horizon was committed, so flushed, before
   * that position, and a replica that has replayed it can serve the walk's page
   * (ReadReplicas.readFrom).
   */
  async horizonAndPosition(db: SharedSql): Promise<{ horizon: string; position: string }> {
    const [row] = await db.rows<{ horizon: string; position: string }>(
      `WITH h AS MATERIALIZED (
         SELECT to_char(
           (least(clock_timestamp(),
              (SELECT min(xact_start) FROM pg_stat_activity
               WHERE backend_type = 'client backend' AND datname = current_database()
                 AND pid <> pg_backend_pid() AND xact_start IS NOT NULL))
            - $1::interval) AT TIME ZONE 'UTC',
           'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS horizon)
       SELECT h.horizon, pg_current_wal_flush_lsn()::text AS position FROM h`,
      [LIST_HORIZON_MARGIN],
    );
    return row;
  }
}

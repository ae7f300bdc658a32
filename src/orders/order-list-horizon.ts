import type { EntityManager } from 'typeorm';

/**
 * How far below the oldest open transaction the horizon stays. A transaction takes its
 * timestamp (`now()`, the `created_at` default) a moment before pg_stat_activity shows its
 * `xact_start`; an order it writes must still fall above the horizon. A second is far more
 * than that moment, and is all an ascending walk lags behind the present.
 */
export const LIST_HORIZON_MARGIN = '1 second';

/**
 * The instant below which no order can still appear or change: every transaction that could
 * write a smaller `created_at` or `updated_at` has ended. `created_at` is the writing
 * transaction's start and `updated_at` is `clock_timestamp()` inside it, so both are at or
 * after the `xact_start` of a transaction still open. An ascending walk serves only orders
 * below this, so a transaction that commits late cannot land behind the walk (the keyset
 * trap); it delays the walk instead. Other databases of the server and this session are left
 * out; a role without pg_read_all_stats sees `xact_start` of its own role's sessions, which
 * are the ones writing orders. Canonical UTC text, as cursor keys are.
 */
export async function readListHorizon(m: EntityManager): Promise<string> {
  const rows: Array<{ horizon: string }> = await m.query(
    `SELECT to_char(
       (least(clock_timestamp(),
          (SELECT min(xact_start) FROM pg_stat_activity
           WHERE backend_type = 'client backend' AND datname = current_database()
             AND pid <> pg_backend_pid() AND xact_start IS NOT NULL))
        - $1::interval) AT TIME ZONE 'UTC',
       'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS horizon`,
    [LIST_HORIZON_MARGIN],
  );
  return rows[0].horizon;
}

import type { DataSource } from 'typeorm';

/**
 * Rebuilds the order counters of `tenantIds` from their orders, for specs that insert orders
 * with raw SQL (to choose their timestamps): the service's writes keep the counters
 * themselves, raw inserts do not.
 */
export async function recountOrders(dataSource: DataSource, tenantIds: number[]): Promise<void> {
  await dataSource.transaction(async (m) => {
    await m.query(`DELETE FROM order_count_deltas WHERE tenant_id = ANY($1::bigint[])`, [
      tenantIds,
    ]);
    await m.query(`DELETE FROM order_counts WHERE tenant_id = ANY($1::bigint[])`, [tenantIds]);
    await m.query(
      `INSERT INTO order_counts (tenant_id, customer_id, status, count)
       SELECT tenant_id, 0, status, count(*) FROM orders
       WHERE tenant_id = ANY($1::bigint[]) GROUP BY tenant_id, status
       UNION ALL
       SELECT tenant_id, customer_id, status, count(*) FROM orders
       WHERE tenant_id = ANY($1::bigint[]) AND customer_id IS NOT NULL
       GROUP BY tenant_id, customer_id, status`,
      [tenantIds],
    );
  });
}

import type { ServerProcess } from './processes.js';

/**
 * POSTs `count` marketplace imports (external ids `prefix-0`…) to a server process, `parallel`
 * at a time; returns each answer's status, in order.
 */
export async function sendImports(
  server: ServerProcess,
  accessToken: string,
  count: number,
  prefix: string,
  parallel = 25,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, i) =>
      fetch(`${server.url}/v1/marketplace/orders/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({
          marketplace: 'n11',
          external_order_id: `${prefix}-${start + i}`,
          customer: { name: 'Ada', email: 'ada@example.com' },
          shipping_address: { country: 'TR', city: 'Izmir', address: 'Street 1' },
          items: [{ sku: 'S', name: 'Thing', quantity: 2, unit_price: 10.05, total: 20.1 }],
        }),
      }).then((r) => r.status),
    );
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

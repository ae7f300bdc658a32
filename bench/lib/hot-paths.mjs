// The hot paths of docs/BEHAVIOUR.md#performance, as autocannon scenarios that both servers
// answer alike. The reference ignores the Authorization header; it is sent to both so
// requests are the same.

/**
 * `setup`: the demo app's credentials, an app token, the seeded order ids and the product
 * ids that order bodies use.
 */
export function hotPaths({ clientId, clientSecret, token, orderIds, productIds, stockIds }) {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const tokenBody = JSON.stringify({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
    scope: 'orders:read orders:write',
  });
  const orderBody = JSON.stringify(benchOrder(productIds));
  // Unique per run and target, so no key of one run is ever replayed by another.
  const runTag = Date.now().toString(36);
  const idempotentCreate = (bodyOf) => (target) => {
    let next = 0;
    const prefix = `bench-${runTag}-${target.name}-${Math.random().toString(36).slice(2, 8)}`;
    return {
      method: 'POST',
      path: '/v1/orders',
      requests: [
        {
          setupRequest: (request) => {
            const n = next++;
            return {
              ...request,
              headers: { ...auth, 'idempotency-key': `${prefix}-${n}` },
              body: bodyOf(n),
            };
          },
        },
      ],
    };
  };
  const stockBodies = stockOrderBodies(stockIds);
  return [
    {
      name: 'POST /builders/oauth/token',
      request: () => ({
        method: 'POST',
        path: '/builders/oauth/token',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      }),
    },
    {
      name: 'GET /v1/orders/{id}',
      request: () => {
        let next = 0;
        return {
          path: `/v1/orders/${orderIds[0]}`,
          headers: auth,
          requests: [
            {
              setupRequest: (request) => ({
                ...request,
                path: `/v1/orders/${orderIds[next++ % orderIds.length]}`,
              }),
            },
          ],
        };
      },
    },
    {
      name: 'GET /v1/orders?page=1&limit=20',
      request: () => ({ path: '/v1/orders?page=1&limit=20', headers: auth }),
    },
    {
      name: 'POST /v1/orders (Idempotency-Key)',
      request: idempotentCreate(() => orderBody),
    },
    {
      name: 'POST /v1/orders stock-tracked (Idempotency-Key)',
      request: idempotentCreate((n) => stockBodies[n % stockBodies.length]),
    },
  ];
}

/**
 * Orders of three stock-tracked products each, taken in turn from `stockIds`: the store's
 * catalog sells many products at once, so concurrent orders meet on a product now and then,
 * not on every request.
 */
export function stockOrderBodies(stockIds = []) {
  const bodies = [];
  for (let start = 0; start + 3 <= stockIds.length; start += 3) {
    bodies.push(JSON.stringify(benchOrder(stockIds.slice(start, start + 3))));
  }
  return bodies;
}

/** A guest order of three lines (a typical create). */
export function benchOrder(productIds, email = 'bench@example.com') {
  return {
    customer: { name: 'Bench Customer', email, phone: '+90 555 000 0000' },
    shipping_address: {
      country: 'TR',
      city: 'Istanbul',
      district: 'Kadikoy',
      address: 'Bench Street 1',
      postal_code: '34710',
    },
    items: productIds.slice(0, 3).map((product_id, i) => ({ product_id, quantity: i + 1 })),
  };
}

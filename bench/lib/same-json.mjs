// Before anything is timed: the reference must answer each hot path as the service does, or
// the ratio would compare different work. Fails loudly on the first difference.
import { deepStrictEqual } from 'node:assert/strict';
import pg from 'pg';
import { call } from './api.mjs';

const VOLATILE = ['id', 'created_at', 'updated_at'];

/** The order without what differs between two creations (its and its lines' ids, times). */
const stable = (order) => ({
  ...Object.fromEntries(Object.entries(order).filter(([k]) => !VOLATILE.includes(k))),
  items: order.items.map(({ id, ...line }) => ({ ...line, id: typeof id })),
});

/** The order's product.inventory_changed events, without what two orders cannot share. */
async function stockEventsOf(databaseUrl, orderId) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT data FROM events WHERE type = 'product.inventory_changed'
         AND data->>'order_id' = $1 ORDER BY seq`,
      [String(orderId)],
    );
    return rows.map(({ data }) => {
      const { object, previous_available, ...rest } = data;
      const { version, updated_at, inventory, ...product } = object;
      return {
        ...rest,
        order_id: typeof rest.order_id,
        product,
        taken: previous_available - inventory.available,
        keys: Object.keys(data).concat(Object.keys(object)),
        types: [typeof version, typeof updated_at, inventory.tracked],
      };
    });
  } finally {
    await client.end();
  }
}

const decode = (part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

export async function checkSameJson(
  service,
  reference,
  { token, orderId, tokenBody, orderBody, stockOrderBody },
) {
  const both = (method, path, options) =>
    Promise.all([service, reference].map((t) => call(t.base, method, path, { token, ...options })));
  const same = (what, actual, expected) => {
    try {
      deepStrictEqual(actual, expected);
    } catch (error) {
      throw new Error(
        `the reference does not answer ${what} as the service does:\n${error.message}`,
        { cause: error },
      );
    }
  };

  const [serviceOrder, referenceOrder] = await both('GET', `/v1/orders/${orderId}`);
  same(`GET /v1/orders/${orderId}`, referenceOrder, serviceOrder);

  const [servicePage, referencePage] = await both('GET', '/v1/orders?page=1&limit=20');
  same('GET /v1/orders?page=1&limit=20', referencePage, servicePage);
  const [serviceFiltered, referenceFiltered] = await both(
    'GET',
    '/v1/orders?status=pending&page=1&limit=5',
  );
  same('GET /v1/orders?status=pending&page=1&limit=5', referenceFiltered, serviceFiltered);

  const key = `same-json-${Date.now()}`;
  for (const [what, body] of [
    ['POST /v1/orders', orderBody],
    ['POST /v1/orders stock-tracked', stockOrderBody],
  ]) {
    // One after the other: the stock-tracked pair takes the same products' stock.
    const created = [];
    for (const t of [service, reference]) {
      created.push(
        await call(t.base, 'POST', '/v1/orders', {
          token,
          body,
          headers: { 'idempotency-key': `${key}-${what}-${t.name}` },
          expect: 201,
        }),
      );
    }
    same(what, stable(created[1]), stable(created[0]));
    // The reference's create must be a real order: the service reads it back identically.
    const readBack = await call(service.base, 'GET', `/v1/orders/${created[1].id}`, { token });
    same(`the reference-created order (${what}), read by the service`, readBack, created[1]);
    same(
      `the stock events of ${what}`,
      await stockEventsOf(service.databaseUrl, created[1].id),
      await stockEventsOf(service.databaseUrl, created[0].id),
    );
  }

  const issued = await Promise.all(
    [service, reference].map((t) =>
      call(t.base, 'POST', '/builders/oauth/token', { body: tokenBody }),
    ),
  );
  const shape = ({ access_token, ...rest }) => {
    const [header, payload] = access_token.split('.').map((p, i) => (i < 2 ? decode(p) : p));
    const { jti, iat, exp, ...claims } = payload;
    return { rest, header, claims, lifetime: exp - iat, jtiType: typeof jti };
  };
  same('POST /builders/oauth/token', shape(issued[1]), shape(issued[0]));
  // Signed with the service's key and recorded like the service's: the service accepts it.
  await call(service.base, 'GET', '/v1/orders?limit=1', { token: issued[1].access_token });
}

// Before anything is timed: the reference must answer each hot path as the service does, or
// the ratio would compare different work. Fails loudly on the first difference.
import { deepStrictEqual } from 'node:assert/strict';
import { call } from './api.mjs';

const VOLATILE = ['id', 'created_at', 'updated_at'];

/** The order without what differs between two creations (its and its lines' ids, times). */
const stable = (order) => ({
  ...Object.fromEntries(Object.entries(order).filter(([k]) => !VOLATILE.includes(k))),
  items: order.items.map(({ id, ...line }) => ({ ...line, id: typeof id })),
});

const decode = (part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

export async function checkSameJson(service, reference, { token, orderId, tokenBody, orderBody }) {
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
  const created = await Promise.all(
    [service, reference].map((t) =>
      call(t.base, 'POST', '/v1/orders', {
        token,
        body: orderBody,
        headers: { 'idempotency-key': `${key}-${t.name}` },
        expect: 201,
      }),
    ),
  );
  same('POST /v1/orders', stable(created[1]), stable(created[0]));
  // The reference's create must be a real order: the service reads it back identically.
  const readBack = await call(service.base, 'GET', `/v1/orders/${created[1].id}`, { token });
  same('the reference-created order, read by the service', readBack, created[1]);

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

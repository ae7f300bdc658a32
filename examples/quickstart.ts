/**
 * The README's quickstart in TypeScript, with the typed client of src/client:
 * token → products → an order (Idempotency-Key) → paid (If-Match), one unit shipped with
 * tracking, one refunded → a customer registers, verifies the email and logs in → the order is
 * the customer's own.
 *
 *   CLIENT_ID=app_… CLIENT_SECRET=cs_… npm run -s quickstart
 *
 * (the demo app's credentials, printed by the first `npm start`; API defaults to
 * http://localhost:3000). Each run uses a new email address, so it can run again and again.
 */
import { createStorefrontClient } from '../src/client/index.js';

interface Outcome<T> {
  data?: T;
  error?: { error: string; error_description: string };
  response: Response;
}

/** The call's data, or the API's error as an exception. */
function ok<T>(step: string, outcome: Outcome<T>): T {
  if (outcome.data === undefined) {
    const { status } = outcome.response;
    const reason = outcome.error
      ? `${outcome.error.error}: ${outcome.error.error_description}`
      : 'no body';
    throw new Error(`${step} failed: HTTP ${status} ${reason}`);
  }
  return outcome.data;
}

const { CLIENT_ID, CLIENT_SECRET, API = 'http://localhost:3000' } = process.env;

async function main(): Promise<void> {
  if (!CLIENT_ID || !CLIENT_SECRET) {
    throw new Error(
      'set CLIENT_ID and CLIENT_SECRET to an app\'s credentials (the demo app\'s are printed by the first "npm start")',
    );
  }
  const { app, asCustomer } = createStorefrontClient({
    baseUrl: API,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    scopes: [
      'products:read',
      'orders:read',
      'orders:write',
      'customer:auth',
      'customer:manage',
      'order:read',
    ],
  });

  const products = ok('list products', await app.GET('/v1/products', { params: { query: {} } }));
  const product = products.data.find((p) => p.active);
  if (!product) throw new Error('the tenant has no active product to order');
  console.log(`products: ${products.data.length}; ordering 2 × ${product.sku} (${product.price})`);

  const run = Date.now().toString(36);
  const email = `ada-${run}@example.com`;
  const order = ok(
    'create order',
    await app.POST('/v1/orders', {
      params: { header: { 'Idempotency-Key': `quickstart-${run}` } },
      body: {
        customer: { name: 'Ada Lovelace', email },
        shipping_address: { country: 'GB', city: 'London', address: '12 St James Square' },
        items: [{ product_id: product.id, quantity: 2 }],
      },
    }),
  );
  console.log(`order ${order.id}: ${order.status}, ${order.total} ${order.currency}`);

  // Its life after creation. If-Match names the version read: a change made meanwhile by
  // another system answers 412 instead of being overwritten.
  const path = { id: order.id };
  const paid = ok(
    'pay',
    await app.POST('/v1/orders/{id}/status', {
      params: { path, header: { 'If-Match': `"${order.version}"` } },
      body: { status: 'paid' },
    }),
  );
  const line = paid.items[0];
  const shipment = ok(
    'fulfill',
    await app.POST('/v1/orders/{id}/fulfillments', {
      params: { path, header: { 'Idempotency-Key': `quickstart-ship-${run}` } },
      body: {
        items: [{ item_id: line.id, quantity: 1 }],
        tracking: {
          company: 'UPS',
          number: '1Z999AA10123456784',
          url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
        },
      },
    }),
  );
  const refund = ok(
    'refund',
    await app.POST('/v1/orders/{id}/refunds', {
      params: { path, header: { 'Idempotency-Key': `quickstart-refund-${run}` } },
      body: {
        items: [{ item_id: line.id, quantity: 1 }],
        reason: 'Arrived damaged',
        restock: false,
      },
    }),
  );
  const now = ok('read order', await app.GET('/v1/orders/{id}', { params: { path } }));
  console.log(
    `shipped 1 × ${line.sku} by ${shipment.tracking?.company} ${shipment.tracking?.number}; ` +
      `refunded ${refund.amount} ${refund.currency}; order ${now.status}, ${now.fulfillment_status}, ` +
      `refunded ${now.refunded_total} of ${now.total}, version ${now.version}`,
  );

  const password = 'analytical engine 1843';
  const customer = ok(
    'register',
    await app.POST('/v1/customers/register', { body: { name: 'Ada Lovelace', email, password } }),
  );
  // The app delivers this ticket to the customer (by email); here it is used at once.
  const ticket = ok(
    'verification ticket',
    await app.POST('/v1/customers/tickets', { body: { type: 'email_verification', email } }),
  );
  ok(
    'verify email',
    await app.POST('/v1/customers/verify-email', { body: { token: ticket.token } }),
  );
  const session = ok(
    'log in',
    await app.POST('/v1/customers/login', { body: { email, password } }),
  );
  console.log(`customer ${customer.id} (${email}): registered, verified, logged in`);

  const own = ok(
    'own orders',
    await asCustomer(session.token).GET('/v1/customers/me/orders', { params: { query: {} } }),
  );
  console.log(`the customer's own orders: ${own.data.map((o) => o.id).join(', ')}`);
}

main().catch((error: unknown) => {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  console.error(cause ? `${message} (${cause}): is the server running at ${API}?` : message);
  process.exitCode = 1;
});

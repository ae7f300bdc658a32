import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from './support/eventually.js';
import { drainFeed } from './support/feed.js';
import { newApp, newShop, newTenant, tokenFor, type Shop } from './support/factories.js';
import { logCapture } from './support/log-capture.js';
import { processBudget, runCli } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const PASSWORD = 'correct horse battery staple';
const ERASURES = '/v1/customers/erasures';
const HOOKED = [
  'customer.created',
  'customer.erased',
  'order.created',
  'order.status_changed',
  'refund.created',
];

type Json = Record<string, unknown>;

/** A person's data, each value unique to this run, so that a scan finds it wherever it is kept. */
function person(label: string) {
  const tag = `${label}${randomBytes(4).toString('hex')}`;
  return {
    name: `Zebulon ${tag} Quartz`,
    email: `Erase.${tag}@Example.com`,
    phone: `+1 555 ${tag}`,
    address: `${tag} Hidden Lane 7`,
    district: `Quarter ${tag}`,
    postal_code: `SW1A ${tag}`,
  };
}
type Person = ReturnType<typeof person>;

/** The values an erasure must leave nowhere (lower case: scans compare without case). */
const secretsOf = (p: Person) =>
  [p.name, p.email, p.phone, p.address, p.district, p.postal_code].map((v) => v.toLowerCase());

/**
 * CONTRACT 3.11, erasure: a person with a linked, a guest and an imported order, events, an
 * idempotent create, refunds, a session, a refresh token and a ticket, and a webhook endpoint
 * that received their events. Afterwards every table and the service's whole log output are
 * scanned for the person's values; another person of the tenant, and the same email in another
 * tenant, are untouched; the orders keep their money, items and statuses.
 */
// The last test runs the CLI four times, three of them side by side.
describe('POST /v1/customers/erasures', { timeout: processBudget(4) }, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const logs = logCapture();
  let shop: Shop;
  let elsewhere: Shop;
  let endpoint: { id: number; path: string };
  const p = person('p');
  const bystander = person('b');
  let customerId: number;
  let session: { token: string; refresh_token: string };
  let ticket: string;
  const mine: Record<'linked' | 'guest' | 'imported', number> = {
    linked: 0,
    guest: 0,
    imported: 0,
  };
  let bystanderOrder: number;
  let elsewhereOrder: number;
  const before = new Map<number, Json>();
  let erasure: { status: number; body: Json };
  const linkedKey = `create-${randomBytes(4).toString('hex')}`;
  const cancelKey = `cancel-${randomBytes(4).toString('hex')}`;
  const heldImport = `HELD-${randomBytes(4).toString('hex')}`;

  const auth = (token = shop.token) => ({ authorization: `Bearer ${token}` });
  const orderBody = (who: Person, extra: Json = {}, email = who.email) => ({
    customer: { name: who.name, email, phone: who.phone, ...extra },
    shipping_address: {
      country: 'GB',
      city: 'London',
      district: who.district,
      address: who.address,
      postal_code: who.postal_code,
    },
    items: [{ product_id: shop.product, quantity: 2 }],
  });
  const getOrder = async (id: number, s = shop) =>
    (await t.http.get(`/v1/orders/${id}`).set(auth(s.token))).body as Json;
  /** Set-up steps: anything but the expected status stops the spec. */
  const ok = (res: { status: number; text: string }, status: number) => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  };
  const importOf = async (id: string) =>
    (await t.http.get(`/v1/marketplace/orders/import/trendyol/${id}`).set(auth())).body as {
      status: string;
      attempts: number;
      order_id: number | null;
    };
  const post = (path: string, body: object, token = shop.token) =>
    t.http.post(path).set(auth(token)).send(body);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createTestApp(
      {
        LOG_LEVEL: 'debug',
        API_RATE_LIMIT_PER_TOKEN: '100000',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_DISPATCH_INTERVAL_MS: '50',
        IMPORT_RETRY_LIMIT: '8',
        IMPORT_RETRY_DELAY_SECONDS: '1',
      },
      [],
      logs.destination,
    );
    // Imports named in held_imports are refused by the database while they are named there.
    await t.dataSource.query(`CREATE TABLE held_imports (external_order_id text PRIMARY KEY)`);
    await t.dataSource.query(`
      CREATE FUNCTION refuse_held_if_named() RETURNS trigger AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM held_imports h WHERE h.external_order_id = NEW.external_order_id)
        THEN RAISE EXCEPTION 'held by the test'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await t.dataSource.query(`
      CREATE TRIGGER refuse_held BEFORE INSERT ON orders FOR EACH ROW
      WHEN (NEW.external_order_id IS NOT NULL) EXECUTE FUNCTION refuse_held_if_named()`);
    shop = await newShop(t);
    elsewhere = await newShop(t);

    const path = `/hooks/${randomBytes(4).toString('hex')}`;
    const created = await post('/v1/webhook-endpoints', {
      url: receiver.url(path),
      event_types: HOOKED,
    });
    ok(created, 201);
    endpoint = { id: created.body.id as number, path };

    // The account: registered, failed and good logins, a reset ticket.
    const registered = await post('/v1/customers/register', {
      name: p.name,
      email: p.email,
      phone: p.phone,
      password: PASSWORD,
    });
    ok(registered, 201);
    customerId = registered.body.id as number;
    const wrong = await post('/v1/customers/login', {
      email: p.email,
      password: 'wrong password!',
    });
    ok(wrong, 401);
    const login = await post('/v1/customers/login', { email: p.email, password: PASSWORD });
    ok(login, 200);
    session = login.body as typeof session;
    // Someone else tries the account: its failed-login counter is kept.
    const stranger = await post('/v1/customers/login', {
      email: p.email,
      password: 'guess guess!',
    });
    ok(stranger, 401);
    const issued = await post('/v1/customers/tickets', { type: 'password_reset', email: p.email });
    ok(issued, 201);
    ticket = issued.body.token as string;

    // Orders: linked (with an Idempotency-Key), guest (another case), imported.
    const linked = await t.http
      .post('/v1/orders')
      .set({ ...auth(), 'idempotency-key': linkedKey })
      .send(orderBody(p, { id: customerId }));
    ok(linked, 201);
    mine.linked = linked.body.id as number;
    const guest = await post('/v1/orders', orderBody(p, {}, p.email.toUpperCase()));
    ok(guest, 201);
    mine.guest = guest.body.id as number;
    // The guest order is cancelled with a key: its stored response is an Order too.
    const cancelled = await t.http
      .post(`/v1/orders/${mine.guest}/cancel`)
      .set({ ...auth(), 'idempotency-key': cancelKey })
      .send({ reason: 'customer' });
    ok(cancelled, 200);
    const externalId = `EXT-${randomBytes(4).toString('hex')}`;
    const imported = await post('/v1/marketplace/orders/import', {
      marketplace: 'trendyol',
      external_order_id: externalId,
      ...orderBody(p),
      items: [{ sku: 'ERASE-1', name: 'Thing', quantity: 1, unit_price: 5, total: 5 }],
    });
    ok(imported, 202);
    await within(10_000, async () => {
      const status = await t.http
        .get(`/v1/marketplace/orders/import/trendyol/${externalId}`)
        .set(auth());
      mine.imported = status.body.order_id as number;
      return status.body.status === 'imported';
    });

    // One more import of the person, refused by the database for now: when the erasure comes
    // it has no order yet and waits for its retry.
    await t.dataSource.query('INSERT INTO held_imports VALUES ($1)', [heldImport]);
    ok(
      await post('/v1/marketplace/orders/import', {
        marketplace: 'trendyol',
        external_order_id: heldImport,
        ...orderBody(p),
        items: [{ sku: 'ERASE-1', name: 'Thing', quantity: 1, unit_price: 5, total: 5 }],
      }),
      202,
    );
    await within(5_000, async () => (await importOf(heldImport)).attempts >= 1);

    // Money moves on the linked order: paid, then a refund (its event carries the order).
    ok(await post(`/v1/orders/${mine.linked}/status`, { status: 'paid' }), 200);
    ok(await post(`/v1/orders/${mine.linked}/refunds`, { amount: 1 }), 201);

    bystanderOrder = (await post('/v1/orders', orderBody(bystander))).body.id as number;
    elsewhereOrder = (
      await t.http
        .post('/v1/orders')
        .set(auth(elsewhere.token))
        .send({ ...orderBody(p), items: [{ product_id: elsewhere.product, quantity: 1 }] })
    ).body.id as number;

    for (const id of [...Object.values(mine), bystanderOrder]) before.set(id, await getOrder(id));
    before.set(elsewhereOrder, await getOrder(elsewhereOrder, elsewhere));

    // Every event so far reached the endpoint: deliveries exist for the person's events.
    const { events } = await drainFeed(t, shop.token);
    const hooked = events.filter((e) => HOOKED.includes(e.type)).length;
    await within(10_000, async () => receiver.at(endpoint.path).length >= hooked);
    if (!receiver.at(endpoint.path).some((h) => h.body.includes(p.email))) {
      throw new Error('no delivery carried the person');
    }

    erasure = await t.http
      .post(ERASURES)
      .set({ ...auth(), 'idempotency-key': 'erase-1' })
      .send({ email: p.email.toLowerCase() });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('answers the email hash, the customer and the number of orders redacted', async () => {
    expect(erasure.status).toBe(200);
    expect(erasure.body).toEqual({
      email_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      customer_id: customerId,
      orders_redacted: 3,
    });
    const replay = await t.http
      .post(ERASURES)
      .set({ ...auth(), 'idempotency-key': 'erase-1' })
      .send({ email: p.email.toLowerCase() });
    expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([
      200,
      erasure.body,
      'true',
    ]);
    // The same key for another person: refused, nothing erased.
    const reused = await t.http
      .post(ERASURES)
      .set({ ...auth(), 'idempotency-key': 'erase-1' })
      .send({ email: bystander.email });
    expect([reused.status, reused.body.error]).toEqual([422, 'idempotency_key_reused']);
  });

  it("the orders keep money, items, statuses and dates, and lose the person's fields", async () => {
    for (const id of Object.values(mine)) {
      const was = before.get(id)!;
      const now = await getOrder(id);
      expect(now).toEqual({
        ...was,
        version: (was.version as number) + 1,
        updated_at: expect.any(String),
        customer: { id: (was.customer as Json).id, name: null, email: null, phone: null },
        shipping_address: {
          country: 'GB',
          city: 'London',
          district: null,
          address: null,
          postal_code: 'SW1A',
        },
      });
      expect((now.updated_at as string) > (was.updated_at as string)).toBe(true);
    }
    const refunds = await t.http.get(`/v1/orders/${mine.linked}/refunds`).set(auth());
    expect(refunds.body.data).toHaveLength(1);
  });

  it('another person of the tenant, and the same email in another tenant, are untouched', async () => {
    expect(await getOrder(bystanderOrder)).toEqual(before.get(bystanderOrder));
    expect(await getOrder(elsewhereOrder, elsewhere)).toEqual(before.get(elsewhereOrder));
  });

  it('the account can never be used again', async () => {
    const me = await t.http.get('/v1/customers/me').set(auth(session.token));
    expect(me.status).toBe(401);
    const refreshed = await post('/v1/customers/token', { refresh_token: session.refresh_token });
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    const login = await post('/v1/customers/login', { email: p.email, password: PASSWORD });
    expect([login.status, login.body.error]).toEqual([401, 'invalid_credentials']);
    const reset = await post('/v1/customers/reset-password', { token: ticket, password: PASSWORD });
    expect([reset.status, reset.body.error]).toEqual([400, 'invalid_ticket']);
    const exported = await post('/v1/customers/data-exports', { email: p.email });
    expect(exported.body).toMatchObject({ customer: null, orders: [] });
  });

  it('an import queued before the erasure becomes an order without the person', async () => {
    expect((await importOf(heldImport)).order_id).toBeNull();
    await t.dataSource.query('DELETE FROM held_imports');
    await within(30_000, async () => (await importOf(heldImport)).status === 'imported');
    const order = await getOrder((await importOf(heldImport)).order_id!);
    expect(order.items).toHaveLength(1);
    expect(order).toMatchObject({
      customer: { id: null, name: null, email: null, phone: null },
      shipping_address: { country: 'GB', city: 'London', address: null, postal_code: 'SW1A' },
    });
  });

  it('an order can no longer be linked to the erased customer', async () => {
    const res = await post('/v1/orders', orderBody(bystander, { id: customerId }));
    expect([res.status, res.body.error]).toEqual([422, 'unknown_customer']);
  });

  it('an order racing the erasure of its customer waits for it, then links no one (422)', async () => {
    const racer = person('r');
    const registered = await post('/v1/customers/register', {
      name: racer.name,
      email: racer.email,
      password: PASSWORD,
    });
    const racerId = registered.body.id as number;
    // The erasure's hold on the customer, and its change, played by hand around the request.
    const erasing = t.dataSource.createQueryRunner();
    await erasing.connect();
    await erasing.startTransaction();
    try {
      await erasing.query('SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
        shop.tenantId,
        racerId,
      ]);
      const order = post('/v1/orders', orderBody(racer, { id: racerId })).then((r) => r);
      await within(5_000, async () => {
        const [{ waiting }] = await t.dataSource.query<Array<{ waiting: number }>>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query ILIKE '%insert into orders%'
             AND datname = current_database()`,
        );
        return waiting > 0;
      });
      await erasing.query(
        `UPDATE customers SET name = NULL, email = NULL, phone = NULL, password_hash = NULL,
           erased_at = now() WHERE tenant_id = $1 AND id = $2`,
        [shop.tenantId, racerId],
      );
      await erasing.commitTransaction();
      const res = await order;
      expect([res.status, res.body.error]).toEqual([422, 'unknown_customer']);
    } finally {
      if (erasing.isTransactionActive) await erasing.rollbackTransaction();
      await erasing.release();
    }
  });

  it('a replay of the idempotent create answers the redacted order', async () => {
    const replay = await t.http
      .post('/v1/orders')
      .set({ ...auth(), 'idempotency-key': linkedKey })
      .send(orderBody(p, { id: customerId }));
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replay.body.customer).toEqual({ id: customerId, name: null, email: null, phone: null });
    const cancelReplay = await t.http
      .post(`/v1/orders/${mine.guest}/cancel`)
      .set({ ...auth(), 'idempotency-key': cancelKey })
      .send({ reason: 'customer' });
    expect([cancelReplay.status, cancelReplay.headers['idempotent-replayed']]).toEqual([
      200,
      'true',
    ]);
    expect(cancelReplay.body).toMatchObject({
      id: mine.guest,
      status: 'cancelled',
      customer: { name: null, email: null, phone: null },
      shipping_address: { address: null, district: null },
    });
  });

  it('writes one customer.erased event with the id only; no feed page shows the person', async () => {
    const { events } = await drainFeed(t, shop.token);
    const erased = events.filter((e) => e.type === 'customer.erased');
    expect(erased.map((e) => e.data)).toEqual([{ object: { id: customerId } }]);
    const text = JSON.stringify(events).toLowerCase();
    for (const secret of secretsOf(p)) expect(text).not.toContain(secret);
    expect(text).toContain(bystander.email.toLowerCase());
  });

  it('redelivered webhooks carry none of it', async () => {
    const list = await t.http
      .get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)
      .query({ limit: 100 })
      .set(auth());
    const deliveries = list.body.data as Array<{ id: number; state: string }>;
    await within(10_000, async () => {
      const states = await t.http
        .get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)
        .query({ limit: 100 })
        .set(auth());
      return (states.body.data as Array<{ state: string }>).every((d) => d.state !== 'pending');
    });
    const sent = receiver.at(endpoint.path).length;
    for (const d of deliveries) {
      const res = await post(
        `/v1/webhook-endpoints/${endpoint.id}/deliveries/${d.id}/redeliver`,
        {},
      );
      expect(res.status).toBe(202);
    }
    await within(10_000, async () => receiver.at(endpoint.path).length >= sent + deliveries.length);
    const again = receiver.at(endpoint.path).slice(sent);
    const text = again.map((h) => h.body.toLowerCase()).join('\n');
    for (const secret of secretsOf(p)) expect(text).not.toContain(secret);
    expect(text).toContain('"email":null');
  });

  it("no table holds the person's values; the audit log keeps the email hash only", async () => {
    // Every table of every schema (the job queue's too); of the other tenant, nothing: the same
    // email there is another store's customer.
    const tables = await t.dataSource.query<
      Array<{ schema: string; name: string; tenanted: boolean }>
    >(
      `SELECT t.table_schema AS schema, t.table_name AS name,
         EXISTS (SELECT 1 FROM information_schema.columns c
                 WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
                   AND c.column_name = 'tenant_id') AS tenanted
       FROM information_schema.tables t
       WHERE t.table_type = 'BASE TABLE'
         AND t.table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    expect(tables.length).toBeGreaterThan(20);
    const found: string[] = [];
    let bystanderSeen = false;
    for (const { schema, name, tenanted } of tables) {
      const rows = await t.dataSource.query<Array<{ row: string }>>(
        `SELECT lower(x::text) AS row FROM "${schema}"."${name}" x
         ${tenanted ? 'WHERE x.tenant_id IS DISTINCT FROM $1' : 'WHERE $1::bigint IS NOT NULL'}`,
        [elsewhere.tenantId],
      );
      for (const { row } of rows) {
        for (const secret of secretsOf(p))
          if (row.includes(secret)) found.push(`${name}: ${secret}`);
        bystanderSeen ||= row.includes(bystander.email.toLowerCase());
      }
    }
    expect(found).toEqual([]);
    // The scan reads what it should: the bystander's email is in their order.
    expect(bystanderSeen).toBe(true);
    const audit = await t.dataSource.query<Json[]>(
      `SELECT actor, target_id, details FROM audit_log WHERE action = 'customer.erase'`,
    );
    expect(audit).toEqual([
      {
        actor: `app:${shop.client.clientId}`,
        target_id: String(customerId),
        details: { email_hash: erasure.body.email_hash, orders_redacted: 3 },
      },
    ]);
  });

  it("the service's log output never showed the person", () => {
    const text = logs.lines.join('').toLowerCase();
    expect(text).toContain('/v1/customers/erasures');
    for (const secret of secretsOf(p)) expect(text).not.toContain(secret);
  });

  it('the email is free to register again', async () => {
    const again = await post('/v1/customers/register', {
      name: 'New Person',
      email: p.email,
      password: PASSWORD,
    });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(customerId);
  });

  it('an email without an account or orders: nothing to redact, still one event', async () => {
    const res = await post(ERASURES, {
      email: `nobody-${randomBytes(3).toString('hex')}@example.com`,
    });
    expect([res.status, res.body.customer_id, res.body.orders_redacted]).toEqual([200, null, 0]);
    const { events } = await drainFeed(t, shop.token);
    expect(events.filter((e) => e.type === 'customer.erased').at(-1)?.data).toEqual({
      object: { id: null },
    });
  });

  it('needs customer:privacy; a malformed email is 400', async () => {
    const limited = await tokenFor(t, await newApp(t, (await newTenant(t)).id, ['orders:read']));
    const refused = await post(ERASURES, { email: 'a@example.com' }, limited);
    expect([refused.status, refused.body.error]).toEqual([403, 'scope_denied']);
    for (const body of [{}, { email: 'not an email' }, { email: 42 }]) {
      const bad = await post(ERASURES, body);
      expect([bad.status, bad.body.error]).toEqual([400, 'validation_failed']);
    }
  });

  it('the CLI exports and erases a person whose request came by mail or phone', async () => {
    const env = { DATABASE_URL: t.databaseUrl, DATA_DIR: t.config.DATA_DIR, LOG_LEVEL: 'silent' };
    const who = ['--tenant', String(shop.tenantId), '--email', bystander.email.toUpperCase()];
    const exported = await runCli(['customer', 'export', ...who, '--json'], env);
    expect(exported.status).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      email: bystander.email.toUpperCase(),
      customer: null,
      orders: [{ id: bystanderOrder, customer: { email: bystander.email } }],
    });

    const erased = await runCli(['customer', 'erase', ...who, '--json'], env);
    expect(erased.status).toBe(0);
    const result = JSON.parse(erased.stdout) as Json;
    expect(result).toEqual({
      email_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      customer_id: null,
      orders_redacted: 1,
    });
    expect((await getOrder(bystanderOrder)).customer).toMatchObject({ email: null });
    // The same person asked again through the API: the same hash, nothing left to redact.
    const again = await post(ERASURES, { email: bystander.email });
    expect(again.body).toEqual({ ...result, orders_redacted: 0 });
    const audit = await t.dataSource.query<Array<{ actor: string }>>(
      `SELECT actor FROM audit_log WHERE action = 'customer.erase' AND details->>'email_hash' = $1
       ORDER BY id`,
      [result.email_hash],
    );
    expect(audit.map((a) => a.actor.split(':')[0])).toEqual(['cli', 'app']);

    const refused = await Promise.all([
      runCli(
        ['customer', 'erase', '--tenant', String(shop.tenantId), '--email', 'nope', '--json'],
        env,
      ),
      runCli(
        ['customer', 'erase', '--tenant', '999999', '--email', 'a@example.com', '--json'],
        env,
      ),
      runCli(['customer', 'export', '--tenant', String(shop.tenantId), '--json'], env),
    ]);
    expect(refused.map((r) => [r.status, (JSON.parse(r.stdout) as Json).error])).toEqual([
      [1, 'validation_failed'],
      [1, 'not_found'],
      [1, 'validation_failed'],
    ]);
  });
});

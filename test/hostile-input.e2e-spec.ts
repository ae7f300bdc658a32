import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../src/orders/order-status.js';
import { newApp, newProduct, newTenant, tokenFor, type TestClient } from './support/factories.js';
import {
  base64Url,
  base64UrlSegment,
  contentType,
  customerIp,
  deepNesting,
  headerValue,
  hostileNumber,
  hostileSegment,
  hostileString,
  hostileValue,
  idempotencyKey,
  isSendableHeaderValue,
  jsonBody,
  jsonBodyText,
  junkJson,
  mutatedBody,
  percentEncode,
  withQuery,
  type BodySpec,
  type FieldPath,
  type HostileJson,
} from './support/hostile-arbitraries.js';
import {
  expectContractResponse,
  expectIdempotencyKeyVerdict,
  expectNothingWritten,
  send,
  writeState,
  type HostileMethod,
  type HostileRequest,
} from './support/hostile-checks.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * Property-based hostile input against every route (docs/BEHAVIOUR.md#errors and #limits): random
 * and structured-but-wrong bodies, query strings, path parameters and headers, through real HTTP.
 * Every answer: never a 5xx, an X-Request-Id, errors in the error shape without internals;
 * a rejected request to a write route writes nothing. Seeds are random; fast-check prints the
 * seed and the shrunk counterexample on failure (replay with FC_SEED=<seed>; FC_RUNS_FACTOR=10
 * runs ten times as many cases; FC_STATS=1 prints the answers' status codes per property).
 */

const PASSWORD = 'correct horse battery staple';
const RUNS_FACTOR = Number(process.env.FC_RUNS_FACTOR ?? '1');
const SEED = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };
/** Runs per property; shrinking a failure stops after 20 s (the failure is still reported). */
const runs = (n: number) => ({
  numRuns: Math.max(1, Math.round(n * RUNS_FACTOR)),
  interruptAfterTimeLimit: 20_000 * RUNS_FACTOR,
  ...SEED,
});
const PROPERTY_TIMEOUT = 120_000;

/** Limits high enough that the suite measures validation, not rate limiting. */
const UNLIMITED = {
  API_RATE_LIMIT_PER_TOKEN: '1000000',
  TOKEN_RATE_LIMIT_PER_CLIENT: '1000000',
  TOKEN_FAILURES_PER_ADDRESS: '1000000',
  LOGIN_FAILURES_PER_EMAIL: '1000000',
  LOGIN_FAILURES_PER_CUSTOMER_IP: '1000000',
  REGISTRATIONS_PER_CUSTOMER_IP: '1000000',
  // No background import processing: row counts change only by the request under test.
  WORKER: 'off',
  // Endpoints point at loopback only.
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
};
const LOOPBACK_HOOK = 'http://127.0.0.1:9/hooks';

describe('hostile input (property-based, every route)', () => {
  let t: TestApp;
  let client: TestClient;
  let appToken: string;
  let limitedToken: string;
  let foreignToken: string;
  let sessionToken: string;
  let doomedSession: string;
  let customerId: number;
  let customerEmail: string;
  let productIds: number[];
  let foreignProductId: number;
  let orderIds: number[];
  let customerOrderId: number;
  /** Orders the operations routes work on (paid, so fulfillments and refunds get that far). */
  let operatedIds: number[];
  /** Their line ids and a fulfillment of the first, for valid bodies and paths. */
  let itemIds: number[];
  let fulfillmentIds: number[];
  let endpointIds: number[];
  let deliveryIds: number[];
  let kid: string;
  const imported = { marketplace: 'trendyol', externalOrderId: 'TY-1/ü 😀' };

  beforeAll(async () => {
    // FC_LOG_LEVEL=warn shows the service's own log lines (causes of any 5xx) on stdout.
    t = await createTestApp({ ...UNLIMITED, LOG_LEVEL: process.env.FC_LOG_LEVEL ?? 'silent' });
    const tenant = await newTenant(t);
    productIds = [
      await newProduct(t, tenant.id, 1999),
      // Tracked: hostile orders meet insufficient_stock too.
      await newProduct(t, tenant.id, 5, undefined, 1000),
    ];
    client = await newApp(t, tenant.id);
    appToken = await tokenFor(t, client);
    limitedToken = await tokenFor(t, await newApp(t, tenant.id, ['orders:read']));
    const foreign = await newTenant(t, 'EUR');
    foreignProductId = await newProduct(t, foreign.id, 100);
    foreignToken = await tokenFor(t, await newApp(t, foreign.id));

    customerEmail = `hostile-${randomBytes(4).toString('hex')}@example.com`;
    const registered = await t.http
      .post('/v1/customers/register')
      .set('authorization', `Bearer ${appToken}`)
      .send({ name: 'Ada', email: customerEmail, password: PASSWORD });
    must(registered.status === 201, `register: ${registered.status} ${registered.text}`);
    customerId = (registered.body as { id: number }).id;
    sessionToken = await login();
    doomedSession = await login();

    orderIds = [];
    for (let i = 0; i < 6; i++) orderIds.push(await createOrder());
    customerOrderId = await createOrder({ id: customerId });
    orderIds.push(customerOrderId);

    operatedIds = [];
    itemIds = [];
    for (let i = 0; i < 3; i++) {
      const id = await createOrder({ id: customerId });
      const paid = await t.http
        .post(`/v1/orders/${id}/status`)
        .set('authorization', `Bearer ${appToken}`)
        .send({ status: 'paid' });
      must(paid.status === 200, `paid: ${paid.status} ${paid.text}`);
      operatedIds.push(id);
      itemIds.push(...(paid.body as { items: Array<{ id: number }> }).items.map((l) => l.id));
    }
    const shipped = await t.http
      .post(`/v1/orders/${operatedIds[0]}/fulfillments`)
      .set('authorization', `Bearer ${appToken}`)
      .send({ items: [{ item_id: itemIds[0], quantity: 1 }] });
    must(shipped.status === 201, `fulfillment: ${shipped.status} ${shipped.text}`);
    fulfillmentIds = [(shipped.body as { id: number }).id];

    const accepted = await t.http
      .post('/v1/marketplace/orders/import')
      .set('authorization', `Bearer ${appToken}`)
      .send({
        marketplace: imported.marketplace,
        external_order_id: imported.externalOrderId,
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
        items: [{ sku: 'S-1', name: 'Widget', quantity: 3, unit_price: 19.99, total: 59.97 }],
      });
    must(accepted.status === 202, `import: ${accepted.status} ${accepted.text}`);

    endpointIds = [];
    // Loopback only (tests never send elsewhere): port 9 has no listener, so deliveries
    // of the suite's orders fail on this machine and reach nobody.
    for (const url of [LOOPBACK_HOOK, `${LOOPBACK_HOOK}/b`]) {
      const created = await t.http
        .post('/v1/webhook-endpoints')
        .set('authorization', `Bearer ${appToken}`)
        .send({ url, event_types: ['order.created'] });
      must(created.status === 201, `endpoint: ${created.status} ${created.text}`);
      endpointIds.push((created.body as { id: number }).id);
    }
    deliveryIds = [1, 2, 3];

    const jwks = await t.http.get('/.well-known/jwks.json');
    kid = (jwks.body as { keys: Array<{ kid: string }> }).keys[0].kid;
  });
  afterAll(() => t?.close());

  function must(condition: boolean, message: string): void {
    if (!condition) throw new Error(`setup failed: ${message}`);
  }

  async function login(): Promise<string> {
    const res = await t.http
      .post('/v1/customers/login')
      .set('authorization', `Bearer ${appToken}`)
      .send({ email: customerEmail, password: PASSWORD });
    must(res.status === 200, `login: ${res.status} ${res.text}`);
    return (res.body as { token: string }).token;
  }

  async function createOrder(customer: Record<string, unknown> = {}): Promise<number> {
    const res = await t.http
      .post('/v1/orders')
      .set('authorization', `Bearer ${appToken}`)
      .send({
        customer: { name: 'Ada', email: 'ada@example.com', ...customer },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
        items: [{ product_id: productIds[0], quantity: 2 }],
      });
    must(res.status === 201, `order: ${res.status} ${res.text}`);
    return (res.body as { id: number }).id;
  }

  // -------------------------------------------------------------------------------------------
  // Sending and checking

  /** Sends, then checks the answer (docs/BEHAVIOUR.md#errors and #limits). */
  async function expectHandled(request: HostileRequest): Promise<void> {
    const response = await send(t.http, request);
    tally(response);
    expectContractResponse(request, response);
  }

  /** FC_STATS=1 prints, per property, how often each status and error code was answered. */
  const outcomes = new Map<string, number>();
  function tally(response: { status: number; body: unknown }): void {
    const code = (response.body as { error?: unknown } | null)?.error;
    const key = `${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  afterEach((context) => {
    if (process.env.FC_STATS) {
      const lines = [...outcomes].sort(([a], [b]) => a.localeCompare(b));
      console.log(`${context.task.name}\n${lines.map(([k, n]) => `  ${k}: ${n}`).join('\n')}`);
    }
    outcomes.clear();
  });

  /** As expectHandled, and a rejected request must leave every written table as it was. */
  async function expectHandledWithoutWrites(
    request: HostileRequest,
    idempotencyKeyHeader?: string,
  ): Promise<void> {
    const before = await writeState(t.dataSource);
    const response = await send(t.http, request);
    const after = await writeState(t.dataSource);
    tally(response);
    expectContractResponse(request, response);
    expectIdempotencyKeyVerdict(idempotencyKeyHeader, request, response);
    expectNothingWritten(request, response, before, after);
  }

  // -------------------------------------------------------------------------------------------
  // Request parts

  /** Mostly the right credentials, sometimes none, the wrong kind, or garbage. */
  function authorization(
    primary: string | undefined,
    others: readonly string[] = [appToken, sessionToken, limitedToken, foreignToken],
  ): fc.Arbitrary<string | undefined> {
    const token = primary ?? appToken;
    const forged = (header: object, payload: object, signature = '') =>
      `Bearer ${base64Url(header)}.${base64Url(payload)}.${signature}`;
    const claims = {
      iss: t.config.publicUrl,
      aud: t.config.publicUrl,
      sub: client.clientId,
      client_id: client.clientId,
      tid: 1,
      app: 1,
      scope: 'orders:read orders:write',
      jti: 'x',
      cv: 1,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 3600,
    };
    return fc.oneof(
      {
        weight: 12,
        arbitrary: fc.constant(primary === undefined ? undefined : `Bearer ${primary}`),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          undefined,
          'Bearer',
          'Bearer ',
          'bearer',
          'Basic',
          'Negotiate abc',
          `bearer ${token}`,
          `BEARER ${token}`,
          `Bearer  ${token}`,
          `Bearer ${token} extra`,
          `Bearer ${token}.x`,
          `Bearer ${token.slice(0, -4)}AAAA`,
          `Bearer ${token.split('.').slice(0, 2).join('.')}.`,
          `Token ${token}`,
          `Basic ${token}`,
          `Basic ${Buffer.from('a:b').toString('base64')}`,
          ...others.map((other) => `Bearer ${other}`),
          forged({ alg: 'none', typ: 'at+jwt', kid }, claims),
          forged({ alg: 'HS256', typ: 'at+jwt', kid }, claims, 'c2lnbmF0dXJl'),
          forged({ alg: 'ES256', typ: 'customer-session+jwt', kid }, claims, 'AAAA'),
          forged({ alg: 'ES256', typ: 'at+jwt', kid: { $ne: null } }, claims),
          forged({ alg: 'ES256', typ: ['at+jwt'], kid: [kid] }, { ...claims, tid: '1 OR 1=1' }),
          // `typ: JWT` makes the JWT library parse the payload as JSON, and throw on this one.
          `Bearer ${base64Url({ typ: 'JWT', alg: 'ES256' })}.${Buffer.from('notjson').toString('base64url')}.x`,
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(base64UrlSegment, base64UrlSegment, base64UrlSegment)
          .map((parts) => `Bearer ${parts.join('.')}`),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(junkJson, junkJson, base64UrlSegment)
          .map(([header, payload, signature]) =>
            forged(
              header !== null && typeof header === 'object' && !Array.isArray(header)
                ? { ...(header as Record<string, HostileJson>), kid, typ: 'at+jwt' }
                : { kid, typ: 'at+jwt', alg: 'ES256' },
              { payload },
              signature,
            ),
          ),
      },
      { weight: 1, arbitrary: headerValue },
      { weight: 1, arbitrary: headerValue.map((v) => `Bearer ${v}`) },
    );
  }

  /** Common headers: authorization, X-Request-Id, Accept, a random extra header. */
  function headers(
    auth: fc.Arbitrary<string | undefined>,
    extra: Record<string, fc.Arbitrary<string | undefined>> = {},
  ): fc.Arbitrary<Record<string, string | undefined>> {
    return fc
      .tuple(
        fc.record({
          authorization: auth,
          'x-request-id': fc.option(
            fc.oneof(headerValue, fc.uuid(), fc.stringMatching(/^[A-Za-z0-9-]{1,64}$/)),
            { nil: undefined, freq: 3 },
          ),
          accept: fc.option(
            fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
            { nil: undefined, freq: 4 },
          ),
          'content-encoding': fc.option(fc.constantFrom('gzip', 'br', 'identity', 'x', ''), {
            nil: undefined,
            freq: 15,
          }),
          ...extra,
        }),
        fc.option(
          fc.tuple(
            fc.oneof(
              fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
              fc.constantFrom(
                'x-forwarded-for',
                'forwarded',
                'x-forwarded-proto',
                'x-forwarded-host',
                'x-real-ip',
                'origin',
                'cookie',
                'x-http-method-override',
                'accept-language',
                'range',
                'if-none-match',
              ),
            ),
            headerValue,
          ),
          { nil: undefined, freq: 4 },
        ),
      )
      .map(([known, random]) => (random ? { [random[0]]: random[1], ...known } : known));
  }

  /** A stray body on a route that takes none. */
  const strayBody: fc.Arbitrary<BodySpec | undefined> = fc.option(jsonBody(junkJson), {
    nil: undefined,
    freq: 8,
  });

  function hostileRequest(
    method: HostileMethod,
    path: fc.Arbitrary<string>,
    head: fc.Arbitrary<Record<string, string | undefined>>,
    body: fc.Arbitrary<BodySpec | undefined> = strayBody,
  ): fc.Arbitrary<HostileRequest> {
    return fc
      .tuple(withQuery(path), head, body)
      .map(([p, h, b]) => ({ method, path: p, headers: h, body: b }))
      .filter(sendable);
  }

  /** `:id` path parameters: mostly real ids, often hostile ones. */
  function idSegment(ids: () => readonly number[]): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...ids().map(String)) },
      { weight: 3, arbitrary: hostileSegment },
    );
  }

  // -------------------------------------------------------------------------------------------
  // Valid bodies, the starting points of structured-but-wrong ones

  const name = fc.oneof(
    fc.constantFrom('Ada', 'Grace Hopper'),
    fc.string({ minLength: 1, maxLength: 20 }),
  );
  const orderCustomer = () =>
    fc.record(
      {
        name,
        email: fc.constantFrom('ada@example.com', 'GRACE@example.com', customerEmail),
        phone: fc.constantFrom('+90 555', '1'),
        id: fc.constantFrom(customerId, 999_999, 0),
      },
      { requiredKeys: ['name', 'email'] },
    );
  const shippingAddress = fc.record(
    {
      country: fc.constantFrom('TR', 'DE'),
      city: fc.constantFrom('Istanbul', 'Berlin'),
      address: fc.constantFrom('Street 1', 'Straße 2'),
      district: fc.constantFrom('Kadıköy', 'x'),
      postal_code: fc.constantFrom('34710', '10115'),
    },
    { requiredKeys: ['country', 'city', 'address'] },
  );
  const customerFields: FieldPath[] = ['name', 'email', 'phone', 'id'].map((f) => ['customer', f]);
  const addressFields: FieldPath[] = ['country', 'city', 'address', 'district', 'postal_code'].map(
    (f) => ['shipping_address', f],
  );

  const itemsJunk = (line: () => HostileJson): fc.Arbitrary<HostileJson> =>
    fc.oneof(
      fc.constantFrom<HostileJson>([[]], [null], ['x'], [1], [], [{}], [[line()]], {}, 'items'),
      fc.integer({ min: 99, max: 120 }).map((n) => Array.from({ length: n }, line)),
      fc.array(hostileValue, { minLength: 1, maxLength: 4 }),
      fc.array(deepNesting, { minLength: 1, maxLength: 2 }),
    );

  /** A webhook endpoint body; `full` for creation (url and event_types required). */
  function endpointBody(full = true): fc.Arbitrary<HostileJson> {
    const valid = fc.record(
      {
        url: fc.constantFrom(LOOPBACK_HOOK, 'ftp://127.0.0.1/x', 'https://user:pw@127.0.0.1:9/'),
        event_types: fc.subarray(['order.created', 'order.status_changed', 'customer.created'], {
          minLength: 1,
        }),
        description: fc.string({ maxLength: 10 }),
        active: fc.boolean(),
      },
      { requiredKeys: full ? ['url', 'event_types'] : [] },
    ) as fc.Arbitrary<HostileJson>;
    return mutatedBody(valid, [
      ['url'],
      ['event_types'],
      ['event_types', 0],
      ['description'],
      ['active'],
    ]);
  }

  function orderBody(): fc.Arbitrary<HostileJson> {
    const valid = fc.record({
      customer: orderCustomer(),
      shipping_address: shippingAddress,
      items: fc.array(
        fc.record({
          product_id: fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...productIds) },
            { weight: 1, arbitrary: fc.constantFrom(foreignProductId, 999_999) },
          ),
          quantity: fc.integer({ min: 1, max: 10_000 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }) as fc.Arbitrary<HostileJson>;
    return mutatedBody(
      valid,
      [
        ['customer'],
        ...customerFields,
        ['shipping_address'],
        ...addressFields,
        ['items'],
        ['items', 0],
        ['items', 0, 'product_id'],
        ['items', 0, 'quantity'],
      ],
      [
        [['items'], itemsJunk(() => ({ product_id: productIds[0], quantity: 1 }))],
        [
          ['items', 0, 'product_id'],
          fc.oneof(fc.constantFrom(foreignProductId, 999_999, 0, -1, 2 ** 53, 1.5), hostileNumber),
        ],
        [['items', 0, 'quantity'], hostileNumber],
        [['customer', 'id'], hostileNumber],
      ],
    );
  }

  function importBody(): fc.Arbitrary<HostileJson> {
    const line = fc
      .record({
        sku: fc.constantFrom('S-1', 'SKU 2'),
        name: fc.constantFrom('Widget', 'Gadget ü'),
        quantity: fc.integer({ min: 1, max: 5 }),
        minor: fc.integer({ min: 0, max: 100_000 }),
        product_id: fc.option(fc.constantFrom(...productIds), { nil: undefined }),
      })
      .map(({ minor, quantity, product_id, ...rest }) => ({
        ...rest,
        quantity,
        unit_price: minor / 100,
        total: (minor * quantity) / 100,
        ...(product_id === undefined ? {} : { product_id }),
      }));
    const valid = fc.record({
      marketplace: fc.constantFrom('trendyol', 'hepsi_burada', 'a-1', imported.marketplace),
      external_order_id: fc.oneof(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
        fc.constant(imported.externalOrderId),
      ),
      customer: orderCustomer(),
      shipping_address: shippingAddress,
      items: fc.array(line, { minLength: 1, maxLength: 3 }),
    }) as fc.Arbitrary<HostileJson>;
    const lineFields = ['sku', 'name', 'quantity', 'unit_price', 'total', 'product_id'].map(
      (f): FieldPath => ['items', 0, f],
    );
    return mutatedBody(
      valid,
      [
        ['marketplace'],
        ['external_order_id'],
        ['customer'],
        ...customerFields,
        ['shipping_address'],
        ...addressFields,
        ['items'],
        ['items', 0],
        ...lineFields,
      ],
      [
        [
          ['marketplace'],
          fc.oneof(
            fc.constantFrom('Trendyol', 'a'.repeat(51), '', 'a b', 'ü', 'a/b', 'a\u0000'),
            hostileString,
          ),
        ],
        [
          ['items'],
          itemsJunk(() => ({ sku: 'S', name: 'N', quantity: 1, unit_price: 1, total: 1 })),
        ],
        [['items', 0, 'unit_price'], hostileNumber],
        [['items', 0, 'total'], hostileNumber],
        [['items', 0, 'quantity'], hostileNumber],
      ],
    );
  }

  function registerBody(): fc.Arbitrary<HostileJson> {
    const valid = fc.record(
      {
        name,
        email: fc.stringMatching(/^[a-z0-9]{8,12}$/).map((s) => `r-${s}@example.com`),
        password: fc.constantFrom(PASSWORD, ' 8chars ', 'y'.repeat(128)),
        phone: fc.constantFrom('+90 555', '😀'),
      },
      { requiredKeys: ['name', 'email', 'password'] },
    ) as fc.Arbitrary<HostileJson>;
    return mutatedBody(
      valid,
      [['name'], ['email'], ['password'], ['phone']],
      [
        [
          ['password'],
          fc.oneof(
            fc.constantFrom('password123', '1234567', 'x'.repeat(129), '\u0000'.repeat(8)),
            fc.string({ unit: 'grapheme', minLength: 7, maxLength: 130 }),
          ),
        ],
        [['email'], fc.constantFrom(customerEmail, customerEmail.toUpperCase(), 'a@b', '@x.y')],
      ],
    );
  }

  function loginBody(): fc.Arbitrary<HostileJson> {
    const valid = fc.record({
      email: fc.constantFrom(customerEmail, customerEmail.toUpperCase(), 'nobody@example.com'),
      password: fc.constantFrom(PASSWORD, 'wrong password', PASSWORD.toUpperCase()),
    }) as fc.Arbitrary<HostileJson>;
    return mutatedBody(
      valid,
      [['email'], ['password']],
      [[['password'], fc.integer({ min: 1020, max: 1100 }).map((n) => 'p'.repeat(n))]],
    );
  }

  function tokenBody(): fc.Arbitrary<HostileJson> {
    const valid = fc.record({
      grant_type: fc.constant('client_credentials'),
      client_id: fc.constantFrom(
        client.clientId,
        client.clientId,
        'app_unknown',
        client.clientId.toUpperCase(),
      ),
      client_secret: fc.constantFrom(
        client.clientSecret,
        client.clientSecret,
        `${client.clientSecret}x`,
        'cs_wrong',
      ),
      scope: fc.constantFrom('orders:read', 'orders:read products:read', 'orders:read orders:read'),
    }) as fc.Arbitrary<HostileJson>;
    return mutatedBody(
      valid,
      [['grant_type'], ['client_id'], ['client_secret'], ['scope']],
      [
        [
          ['scope'],
          fc.constantFrom('', ' ', 'admin', 'orders:read\tproducts:read', 'ORDERS:READ', '*'),
        ],
        [['client_id'], fc.constantFrom(`app_${'x'.repeat(61)}`, 'app_', 'app_%00', 'app_ü')],
        [['client_secret'], fc.integer({ min: 250, max: 300 }).map((n) => 'c'.repeat(n))],
        [['grant_type'], fc.constantFrom('password', 'CLIENT_CREDENTIALS', 'client_credentials ')],
      ],
    );
  }

  /** An x-www-form-urlencoded token request: known and random parameters, repeats, junk. */
  function tokenForm(): fc.Arbitrary<string> {
    const known = fc.constantFrom(
      'grant_type=client_credentials',
      `client_id=${client.clientId}`,
      `client_secret=${client.clientSecret}`,
      'client_secret=cs_wrong',
      'scope=orders%3Aread',
      'scope=orders:read+products:read',
      'scope=orders%3Aread%20admin',
      'grant_type=password',
    );
    const junk = fc.oneof(
      fc.constantFrom('', '=', '&', 'scope', 'scope=', '%', '%E0%A4%A=1', 'a=%00', '__proto__=1'),
      fc
        .tuple(
          fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', '__proto__'),
          hostileString,
        )
        .map(([k, v]) => `${k}=${percentEncode(v)}`),
      fc.tuple(hostileSegment, hostileSegment).map(([k, v]) => `${k}=${v}`),
    );
    return fc
      .array(fc.oneof({ weight: 3, arbitrary: known }, { weight: 2, arbitrary: junk }), {
        maxLength: 7,
      })
      .map((parts) => parts.join('&'));
  }

  /**
   * Revocation and introspection bodies: the client's credentials (right or wrong) and tokens
   * that are never live ones of the suite (revoking one would break the other routes).
   */
  function tokenReferenceBody(): fc.Arbitrary<HostileJson> {
    const valid = fc.record({
      token: fc.constantFrom(`rt_${'A'.repeat(43)}`, 'a.b.c', 'x', `${'e'.repeat(40)}.e.e`),
      token_type_hint: fc.constantFrom('access_token', 'refresh_token', 'other'),
      client_id: fc.constantFrom(client.clientId, 'app_unknown'),
      client_secret: fc.constantFrom(client.clientSecret, 'cs_wrong'),
    }) as fc.Arbitrary<HostileJson>;
    return mutatedBody(
      valid,
      [['token'], ['token_type_hint'], ['client_id'], ['client_secret']],
      [
        [['token'], hostileString],
        [['client_id'], fc.constantFrom(`app_${'x'.repeat(61)}`, 'app_', 'app_%00', 'app_ü')],
      ],
    );
  }

  function tokenReferenceForm(): fc.Arbitrary<string> {
    const known = fc.constantFrom(
      'token=x',
      `token=rt_${'A'.repeat(43)}`,
      'token_type_hint=refresh_token',
      `client_id=${client.clientId}`,
      `client_secret=${client.clientSecret}`,
      'client_secret=cs_wrong',
    );
    const junk = fc.oneof(
      fc.constantFrom('', '=', '&', 'token', 'token=', '%', '%E0%A4%A=1', '__proto__=1'),
      fc
        .tuple(fc.constantFrom('token', 'token_type_hint', 'client_id', '__proto__'), hostileString)
        .map(([k, v]) => `${k}=${percentEncode(v)}`),
    );
    return fc
      .array(fc.oneof({ weight: 3, arbitrary: known }, { weight: 2, arbitrary: junk }), {
        maxLength: 6,
      })
      .map((parts) => parts.join('&'));
  }

  /** Authorization: Basic variants (client_secret_basic), right and wrong. */
  function basicAuthorization(): fc.Arbitrary<string | undefined> {
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          `Basic ${b64(`${client.clientId}:${client.clientSecret}`)}`,
          `basic ${b64(`${client.clientId}:${client.clientSecret}`)}`,
          `Basic ${b64(`${client.clientId}:wrong`)}`,
          `Basic ${b64(`${client.clientId}:`)}`,
          `Basic ${b64(`:${client.clientSecret}`)}`,
          `Basic ${b64('%E0%A4%A:%')}`,
          `Basic ${b64('app_x%00:y')}`,
          'Basic',
          'Basic ',
          'Basic ====',
          'Basic !!!',
          `Basic ${b64(client.clientId)}`,
        ),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(hostileString, hostileString)
          .map(([id, secret]) => `Basic ${b64(`${id}:${secret}`)}`),
      },
      {
        weight: 1,
        arbitrary: fc
          .uint8Array({ maxLength: 80 })
          .map((b) => `Basic ${Buffer.from(b).toString('base64')}`),
      },
      { weight: 1, arbitrary: headerValue.map((v) => `Basic ${v}`) },
    );
  }

  // -------------------------------------------------------------------------------------------
  // Routes

  interface Route {
    name: string;
    arbitrary: () => fc.Arbitrary<HostileRequest>;
    runs: number;
    /** Compare write state before and after every rejected request. */
    writes?: boolean;
    /** Fixed cases run first on every run: named hostile inputs and defects found before. */
    examples?: () => HostileRequest[];
  }

  /** A fixed JSON request with the app token. */
  const example = (path: string, body: string, extra: Record<string, string> = {}) =>
    ({
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${appToken}`, ...extra },
      body: { text: body, contentType: 'application/json' },
    }) satisfies HostileRequest;
  const validOrderText = () =>
    JSON.stringify({
      customer: { name: 'Ada', email: 'ada@example.com' },
      shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
      items: [{ product_id: productIds[0], quantity: 1 }],
    });
  const withItems = (items: string) =>
    validOrderText().replace(/"items":\[.*\]/, `"items":${items}`);
  const validImport = (items: string) =>
    JSON.stringify({
      marketplace: 'm',
      external_order_id: 'e-1',
      customer: { name: 'Ada', email: 'ada@example.com' },
      shipping_address: { country: 'TR', city: 'Istanbul', address: 'Street 1' },
      items: [],
    }).replace('"items":[]', `"items":${items}`);

  const appAuth = () => authorization(appToken);
  const sessionAuth = () => authorization(sessionToken);
  const openAuth = () =>
    fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, authorization(undefined));
  const fixed = (path: string) => fc.constant(path);

  /** `If-Match` / `If-None-Match`: absent, real tags, lists, weak ones, or anything. */
  const preconditionHeader = fc.option(
    fc.oneof(
      fc.constantFrom('"1"', '"2"', '"3"', '*', 'W/"2"', '"1", "2"', '"x,y"', '2', '"', ''),
      headerValue,
    ),
    { nil: undefined, freq: 2 },
  );
  const lineQuantities = () =>
    fc.array(
      fc.record({
        item_id: fc.oneof(fc.constantFrom(...itemIds), fc.integer({ min: 1, max: 1_000_000 })),
        quantity: fc.integer({ min: 1, max: 3 }),
      }),
      { minLength: 1, maxLength: 3 },
    ) as fc.Arbitrary<HostileJson>;
  const patchBody = () =>
    mutatedBody(
      fc.record(
        {
          note: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
          tags: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 5 }),
          metadata: fc.dictionary(
            fc.stringMatching(/^[A-Za-z0-9_.-]{1,10}$/),
            fc.option(fc.string({ maxLength: 20 }), { nil: null }),
            { maxKeys: 5 },
          ),
        },
        { requiredKeys: [] },
      ),
      [['note'], ['tags'], ['metadata'], ['tags', 0]],
      [
        [
          ['metadata'],
          fc.constant(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'v']))),
        ],
      ],
    );
  const cancelBody = () =>
    mutatedBody(
      fc.record(
        {
          reason: fc.constantFrom('customer', 'fraud', 'inventory', 'declined', 'other'),
          note: fc.string({ maxLength: 30 }),
          restock: fc.boolean(),
        },
        { requiredKeys: ['reason'] },
      ),
      [['reason'], ['note'], ['restock']],
    );
  const tracking = () =>
    fc.record(
      {
        company: fc.constantFrom('UPS', 'DHL'),
        number: fc.string({ minLength: 1, maxLength: 20 }),
        url: fc.constantFrom('https://track.example/1', 'http://track.example/1', 'javascript:x'),
      },
      { requiredKeys: ['company', 'number'] },
    );
  const fulfillmentBody = () =>
    mutatedBody(
      fc.record({ items: lineQuantities(), tracking: tracking() }, { requiredKeys: [] }),
      [
        ['items'],
        ['tracking'],
        ['items', 0],
        ['items', 0, 'item_id'],
        ['items', 0, 'quantity'],
        ['tracking', 'url'],
      ],
    );
  const refundBody = () =>
    mutatedBody(
      fc.record(
        {
          amount: fc.constantFrom(0.01, 1, 19.99, 100000),
          items: lineQuantities(),
          reason: fc.string({ maxLength: 30 }),
          restock: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      [['amount'], ['items'], ['reason'], ['restock'], ['items', 0, 'quantity']],
      [[['amount'], hostileNumber]],
    );
  const trackingPatchBody = () =>
    mutatedBody(fc.record({ tracking: fc.option(tracking(), { nil: null }) }), [
      ['tracking'],
      ['tracking', 'company'],
      ['tracking', 'url'],
    ]);

  const productBody = () =>
    mutatedBody(
      fc.record(
        {
          sku: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/), fc.string({ maxLength: 70 })),
          name: fc.string({ minLength: 1, maxLength: 30 }),
          price: fc.constantFrom(0, 0.01, 19.99, 1e9),
          active: fc.boolean(),
          inventory: fc.record(
            { tracked: fc.boolean(), available: fc.integer({ min: -5, max: 50 }) },
            { requiredKeys: ['tracked'] },
          ),
        },
        { requiredKeys: ['sku', 'name', 'price'] },
      ),
      [['sku'], ['name'], ['price'], ['active'], ['inventory'], ['inventory', 'available']],
      [[['price'], hostileNumber]],
    );
  const productPatchBody = () =>
    mutatedBody(
      fc.record(
        {
          name: fc.string({ minLength: 1, maxLength: 30 }),
          price: fc.constantFrom(0, 1.5, 99.99),
          active: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      [['name'], ['price'], ['active']],
    );
  const inventoryBody = () =>
    mutatedBody(
      fc.record(
        {
          adjustment: fc.integer({ min: -20, max: 20 }),
          available: fc.integer({ min: -2, max: 50 }),
          reason: fc.string({ maxLength: 30 }),
        },
        { requiredKeys: [] },
      ),
      [['adjustment'], ['available'], ['reason']],
      [[['adjustment'], hostileNumber]],
    );

  /** An OAuth endpoint: JSON, form or no body, with or without (hostile) Basic credentials. */
  const oauthRoute = (
    endpoint: string,
    count: number,
    body: () => fc.Arbitrary<HostileJson>,
    form: () => fc.Arbitrary<string>,
  ): Route => ({
    name: `POST /builders/oauth/${endpoint} (JSON, form, Basic)`,
    runs: count,
    writes: true,
    arbitrary: () =>
      hostileRequest(
        'POST',
        fixed(`/builders/oauth/${endpoint}`),
        headers(basicAuthorization()),
        fc.oneof(
          { weight: 3, arbitrary: jsonBody(body()) },
          {
            weight: 3,
            arbitrary: fc
              .tuple(form(), contentType('application/x-www-form-urlencoded'))
              .map(([text, type]) => ({ text, contentType: type })),
          },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
      ),
  });

  const ROUTES: Route[] = [
    oauthRoute('token', 200, tokenBody, tokenForm),
    oauthRoute('revoke', 100, tokenReferenceBody, tokenReferenceForm),
    oauthRoute('introspect', 100, tokenReferenceBody, tokenReferenceForm),
    {
      name: 'GET /.well-known/jwks.json',
      runs: 100,
      arbitrary: () => hostileRequest('GET', fixed('/.well-known/jwks.json'), headers(openAuth())),
    },
    {
      name: 'GET /.well-known/oauth-authorization-server',
      runs: 100,
      arbitrary: () =>
        hostileRequest(
          'GET',
          fixed('/.well-known/oauth-authorization-server'),
          headers(openAuth()),
        ),
    },
    {
      name: 'GET /health/live',
      runs: 100,
      arbitrary: () => hostileRequest('GET', fixed('/health/live'), headers(openAuth())),
    },
    {
      name: 'GET /health/ready',
      runs: 100,
      arbitrary: () => hostileRequest('GET', fixed('/health/ready'), headers(openAuth())),
    },
    {
      name: 'GET /metrics',
      runs: 100,
      arbitrary: () => hostileRequest('GET', fixed('/metrics'), headers(openAuth())),
    },
    {
      name: 'GET /v1/products',
      runs: 200,
      arbitrary: () => hostileRequest('GET', fixed('/v1/products'), headers(appAuth())),
    },
    {
      name: 'GET /v1/products/:id',
      runs: 200,
      arbitrary: () =>
        hostileRequest(
          'GET',
          idSegment(() => [...productIds, foreignProductId]).map((id) => `/v1/products/${id}`),
          headers(appAuth()),
        ),
    },
    {
      name: 'POST /v1/products (with and without Idempotency-Key)',
      runs: 120,
      writes: true,
      examples: () => [
        example('/v1/products', '{"sku":"a b","name":"x","price":1}'),
        example(
          '/v1/products',
          '{"sku":"OK","name":"x","price":1,"inventory":{"tracked":true,"available":1e308}}',
        ),
        example('/v1/products', '{"sku":"OK","name":"x","price":1,"inventory":null}'),
        example('/v1/products', '{"__proto__":{"sku":"x"},"sku":"OK2","name":"x","price":0.001}'),
      ],
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/products'),
          headers(appAuth(), {
            'idempotency-key': fc.option(idempotencyKey, { nil: undefined, freq: 2 }),
          }),
          fc.option(jsonBody(productBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'PATCH /v1/products/:id and POST /v1/products/:id/inventory (If-Match)',
      runs: 150,
      writes: true,
      examples: () => [
        example(`/v1/products/${productIds[1]}/inventory`, '{"adjustment":1,"available":1}'),
        example(`/v1/products/${productIds[1]}/inventory`, '{"adjustment":-0}'),
        example(`/v1/products/${productIds[1]}/inventory`, '{"adjustment":9007199254740993}'),
      ],
      arbitrary: () =>
        fc.oneof(
          hostileRequest(
            'PATCH',
            idSegment(() => [...productIds, foreignProductId]).map((id) => `/v1/products/${id}`),
            headers(appAuth(), { 'if-match': preconditionHeader }),
            fc.option(jsonBody(productPatchBody()), { nil: undefined, freq: 20 }),
          ),
          hostileRequest(
            'POST',
            idSegment(() => [...productIds, foreignProductId]).map(
              (id) => `/v1/products/${id}/inventory`,
            ),
            headers(appAuth(), {
              'if-match': preconditionHeader,
              'idempotency-key': fc.option(idempotencyKey, { nil: undefined, freq: 2 }),
            }),
            fc.option(jsonBody(inventoryBody()), { nil: undefined, freq: 20 }),
          ),
        ),
    },
    {
      name: 'POST /v1/orders (with and without Idempotency-Key)',
      runs: 150,
      writes: true,
      examples: () => [
        example('/v1/orders', withItems('[[]]')),
        example('/v1/orders', withItems('[null]')),
        example('/v1/orders', withItems(`[{"product_id":${foreignProductId},"quantity":1}]`)),
        example('/v1/orders', withItems(`[{"product_id":${'9'.repeat(300)},"quantity":1e308}]`)),
        example('/v1/orders', withItems(`[{"product_id":${productIds[0]},"quantity":-0}]`)),
        example('/v1/orders', validOrderText().replace('"Ada"', `"${'a\uFE0F'.repeat(101)}"`)),
        example('/v1/orders', validOrderText().replace('"Ada"', '"a\\u0000b"')),
        example('/v1/orders', validOrderText().replace('"Ada"', '"\\ud800"')),
        example('/v1/orders', validOrderText().replace('{', '{"__proto__":{"admin":true},')),
        example('/v1/orders', validOrderText(), { 'idempotency-key': 'caf\u00e9' }),
        example('/v1/orders', `{"customer":${'['.repeat(50)}${']'.repeat(50)}}`),
      ],
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/orders'),
          headers(appAuth(), {
            'idempotency-key': fc.option(idempotencyKey, { nil: undefined, freq: 2 }),
          }),
          fc.option(jsonBody(orderBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'GET /v1/orders',
      runs: 200,
      arbitrary: () =>
        hostileRequest(
          'GET',
          fixed('/v1/orders'),
          headers(fc.oneof(appAuth(), authorization(sessionToken))),
        ),
    },
    {
      name: 'GET /v1/orders/:id',
      runs: 200,
      arbitrary: () =>
        hostileRequest(
          'GET',
          idSegment(() => orderIds).map((id) => `/v1/orders/${id}`),
          headers(fc.oneof(appAuth(), authorization(sessionToken))),
        ),
    },
    {
      name: 'GET /v1/orders/:id/events',
      runs: 100,
      arbitrary: () =>
        hostileRequest(
          'GET',
          idSegment(() => orderIds).map((id) => `/v1/orders/${id}/events`),
          headers(appAuth()),
        ),
    },
    {
      name: 'GET /v1/events',
      runs: 150,
      arbitrary: () => hostileRequest('GET', fixed('/v1/events'), headers(appAuth())),
    },
    {
      name: 'POST /v1/webhook-endpoints',
      runs: 120,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/webhook-endpoints'),
          headers(appAuth()),
          fc.option(jsonBody(endpointBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'GET /v1/webhook-endpoints',
      runs: 80,
      arbitrary: () => hostileRequest('GET', fixed('/v1/webhook-endpoints'), headers(appAuth())),
    },
    {
      name: 'GET /v1/webhook-endpoints/:id (and its deliveries)',
      runs: 120,
      arbitrary: () =>
        hostileRequest(
          'GET',
          fc
            .tuple(
              idSegment(() => endpointIds),
              fc.constantFrom('', '/deliveries'),
            )
            .map(([id, tail]) => `/v1/webhook-endpoints/${id}${tail}`),
          headers(appAuth()),
        ),
    },
    {
      name: 'PATCH /v1/webhook-endpoints/:id',
      runs: 120,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'PATCH',
          idSegment(() => endpointIds).map((id) => `/v1/webhook-endpoints/${id}`),
          headers(appAuth()),
          fc.option(jsonBody(endpointBody(false)), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'DELETE /v1/webhook-endpoints/:id, rotate-secret, redeliver',
      runs: 120,
      writes: true,
      arbitrary: () =>
        fc.oneof(
          hostileRequest(
            'DELETE',
            idSegment(() => [999_999]).map((id) => `/v1/webhook-endpoints/${id}`),
            headers(appAuth()),
          ),
          hostileRequest(
            'POST',
            idSegment(() => [999_999]).map((id) => `/v1/webhook-endpoints/${id}/rotate-secret`),
            headers(appAuth()),
          ),
          hostileRequest(
            'POST',
            fc
              .tuple(
                idSegment(() => endpointIds),
                idSegment(() => deliveryIds),
              )
              .map(([id, d]) => `/v1/webhook-endpoints/${id}/deliveries/${d}/redeliver`),
            headers(appAuth()),
          ),
        ),
    },
    {
      name: 'POST /v1/orders/:id/status',
      runs: 120,
      writes: true,
      examples: () => [
        example(`/v1/orders/${orderIds[0]}/status`, '{"status":"pending"}'),
        example(`/v1/orders/${'9'.repeat(300)}/status`, '{"status":"paid"}'),
        example(`/v1/orders/${orderIds[0]}/status`, '{"status":"PAID"}'),
      ],
      arbitrary: () =>
        hostileRequest(
          'POST',
          idSegment(() => orderIds).map((id) => `/v1/orders/${id}/status`),
          headers(appAuth()),
          fc.option(
            jsonBody(
              mutatedBody(
                fc.record({
                  status: fc.constantFrom(...ORDER_STATUSES),
                }) as fc.Arbitrary<HostileJson>,
                [['status']],
                [
                  [
                    ['status'],
                    fc.constantFrom('PAID', ' paid', 'paid ', 'unknown', '', 'pending,paid'),
                  ],
                ],
              ),
            ),
            { nil: undefined, freq: 20 },
          ),
        ),
    },
    {
      name: 'PATCH /v1/orders/:id (JSON and merge-patch, If-Match)',
      runs: 150,
      writes: true,
      examples: () => [
        {
          method: 'PATCH',
          path: `/v1/orders/${operatedIds[1]}`,
          headers: { authorization: `Bearer ${appToken}`, 'if-match': '"1",' },
          body: { text: '{"metadata":{"k":null}}', contentType: 'application/merge-patch+json' },
        },
        {
          method: 'PATCH',
          path: `/v1/orders/${operatedIds[1]}`,
          headers: { authorization: `Bearer ${appToken}` },
          body: {
            text: '{"metadata":{"constructor":"x"},"tags":[null]}',
            contentType: 'application/json',
          },
        },
      ],
      arbitrary: () =>
        hostileRequest(
          'PATCH',
          idSegment(() => operatedIds).map((id) => `/v1/orders/${id}`),
          headers(appAuth(), { 'if-match': preconditionHeader }),
          fc.option(
            fc.oneof(
              jsonBody(patchBody()),
              fc
                .tuple(jsonBodyText(patchBody()), contentType('application/merge-patch+json'))
                .map(([text, type]): BodySpec => ({ text, contentType: type })),
            ),
            { nil: undefined, freq: 20 },
          ),
        ),
    },
    {
      name: 'POST /v1/orders/:id/cancel, fulfillments and refunds (If-Match)',
      runs: 200,
      writes: true,
      examples: () => [
        example(`/v1/orders/${operatedIds[1]}/refunds`, '{"amount":null}'),
        example(`/v1/orders/${operatedIds[1]}/refunds`, '{"items":null}'),
        example(`/v1/orders/${operatedIds[1]}/fulfillments`, '{"items":null}'),
        example(`/v1/orders/${operatedIds[1]}/refunds`, '{"amount":1e-7}'),
        example(`/v1/orders/${operatedIds[1]}/refunds`, '{"amount":99999999999999999999}'),
        example(
          `/v1/orders/${operatedIds[1]}/fulfillments`,
          `{"items":[{"item_id":${itemIds[0]},"quantity":1}]}`,
        ),
      ],
      arbitrary: () =>
        fc
          .tuple(
            idSegment(() => operatedIds),
            fc.constantFrom(
              ['cancel', cancelBody()] as const,
              ['fulfillments', fulfillmentBody()] as const,
              ['refunds', refundBody()] as const,
            ),
          )
          .chain(([id, [operation, body]]) =>
            hostileRequest(
              'POST',
              fc.constant(`/v1/orders/${id}/${operation}`),
              headers(appAuth(), {
                'if-match': preconditionHeader,
                'idempotency-key': fc.option(idempotencyKey, { nil: undefined, freq: 3 }),
              }),
              fc.option(jsonBody(body), { nil: undefined, freq: 20 }),
            ),
          ),
    },
    {
      name: 'PATCH /v1/orders/:id/fulfillments/:fulfillment_id',
      runs: 100,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'PATCH',
          fc
            .tuple(
              idSegment(() => operatedIds),
              idSegment(() => fulfillmentIds),
            )
            .map(([id, f]) => `/v1/orders/${id}/fulfillments/${f}`),
          headers(appAuth(), { 'if-match': preconditionHeader }),
          fc.option(jsonBody(trackingPatchBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'GET /v1/orders/:id/fulfillments and refunds (app token or customer session)',
      runs: 100,
      arbitrary: () =>
        fc.oneof(
          hostileRequest(
            'GET',
            fc
              .tuple(
                idSegment(() => operatedIds),
                fc.constantFrom('fulfillments', 'refunds'),
              )
              .map(([id, list]) => `/v1/orders/${id}/${list}`),
            headers(fc.oneof(appAuth(), authorization(sessionToken))),
          ),
          hostileRequest(
            'GET',
            fc
              .tuple(
                idSegment(() => operatedIds),
                idSegment(() => fulfillmentIds),
              )
              .map(([id, f]) => `/v1/orders/${id}/fulfillments/${f}`),
            headers(fc.oneof(appAuth(), authorization(sessionToken))),
          ),
          hostileRequest(
            'GET',
            idSegment(() => operatedIds).map((id) => `/v1/orders/${id}`),
            headers(appAuth(), { 'if-none-match': preconditionHeader }),
          ),
        ),
    },
    {
      name: 'POST /v1/customers/register (X-Customer-IP)',
      runs: 100,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/customers/register'),
          headers(appAuth(), {
            'x-customer-ip': fc.option(customerIp, { nil: undefined, freq: 2 }),
          }),
          fc.option(jsonBody(registerBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'POST /v1/customers/login (X-Customer-IP)',
      runs: 100,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/customers/login'),
          headers(appAuth(), {
            'x-customer-ip': fc.option(customerIp, { nil: undefined, freq: 2 }),
          }),
          fc.option(jsonBody(loginBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'POST /v1/customers/data-exports',
      runs: 80,
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/customers/data-exports'),
          headers(appAuth()),
          fc.option(
            jsonBody(
              mutatedBody(
                fc.record({
                  email: fc.constantFrom('ada@example.com', 'GRACE@example.com', customerEmail),
                }) as fc.Arbitrary<HostileJson>,
                [['email']],
              ),
            ),
            { nil: undefined, freq: 20 },
          ),
        ),
    },
    {
      // Only emails of no one in the suite: a valid erasure must not end the suite's customer.
      name: 'POST /v1/customers/erasures',
      runs: 80,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/customers/erasures'),
          headers(appAuth()),
          fc.option(
            jsonBody(
              mutatedBody(
                fc.record({
                  email: fc.constantFrom('nobody@example.com', 'NO.ONE@example.com'),
                }) as fc.Arbitrary<HostileJson>,
                [['email']],
              ),
            ),
            { nil: undefined, freq: 20 },
          ),
        ),
    },
    {
      name: 'POST /v1/customers/token',
      runs: 100,
      writes: true,
      examples: () => [
        example('/v1/customers/token', `{"refresh_token":"rt_${'A'.repeat(43)}"}`),
        example('/v1/customers/token', '{"refresh_token":null}'),
        example('/v1/customers/token', `{"refresh_token":"${'x'.repeat(600)}"}`),
      ],
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/customers/token'),
          headers(appAuth()),
          fc.option(
            jsonBody(
              mutatedBody(
                fc.record({
                  refresh_token: fc.oneof(
                    fc.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
                    fc.string({ maxLength: 60 }),
                  ),
                }) as fc.Arbitrary<HostileJson>,
                [['refresh_token']],
              ),
            ),
            { nil: undefined, freq: 20 },
          ),
        ),
    },
    {
      name: 'GET /v1/customers/me',
      runs: 150,
      arbitrary: () => hostileRequest('GET', fixed('/v1/customers/me'), headers(sessionAuth())),
    },
    {
      name: 'GET /v1/customers/me/orders',
      runs: 200,
      arbitrary: () =>
        hostileRequest('GET', fixed('/v1/customers/me/orders'), headers(sessionAuth())),
    },
    {
      name: 'GET /v1/customers/me/orders/:id',
      runs: 200,
      arbitrary: () =>
        hostileRequest(
          'GET',
          idSegment(() => orderIds).map((id) => `/v1/customers/me/orders/${id}`),
          headers(sessionAuth()),
        ),
    },
    {
      name: 'POST /v1/marketplace/orders/import (with and without Idempotency-Key)',
      runs: 150,
      writes: true,
      examples: () => [
        example('/v1/marketplace/orders/import', validImport('[[]]')),
        example('/v1/marketplace/orders/import', validImport('[null]')),
        example(
          '/v1/marketplace/orders/import',
          validImport('[{"sku":"S","name":"N","quantity":3,"unit_price":1.005,"total":3.015}]'),
        ),
        example(
          '/v1/marketplace/orders/import',
          validImport('[{"sku":"S","name":"N","quantity":1,"unit_price":1e308,"total":1e308}]'),
        ),
      ],
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/marketplace/orders/import'),
          headers(appAuth(), {
            'idempotency-key': fc.option(idempotencyKey, { nil: undefined, freq: 2 }),
          }),
          fc.option(jsonBody(importBody()), { nil: undefined, freq: 20 }),
        ),
    },
    {
      name: 'GET /v1/marketplace/orders/import/:marketplace/:externalOrderId',
      runs: 200,
      arbitrary: () =>
        hostileRequest(
          'GET',
          fc
            .tuple(
              fc.oneof(fc.constant(imported.marketplace), hostileSegment),
              fc.oneof(fc.constant(encodeURIComponent(imported.externalOrderId)), hostileSegment),
            )
            .map(([m, e]) => `/v1/marketplace/orders/import/${m}/${e}`),
          headers(appAuth()),
        ),
    },
    {
      // Last of the customer routes: a successful logout ends this session for good.
      name: 'POST /v1/customers/logout',
      runs: 80,
      writes: true,
      arbitrary: () =>
        hostileRequest(
          'POST',
          fixed('/v1/customers/logout'),
          headers(authorization(doomedSession, [appToken, limitedToken, foreignToken])),
        ),
    },
  ];

  it.each(ROUTES.map((route) => [route.name, route] as const))(
    '%s',
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(route.arbitrary(), (r) =>
          route.writes ? expectHandledWithoutWrites(r) : expectHandled(r),
        ),
        { ...runs(route.runs), examples: (route.examples?.() ?? []).map((e) => [e]) },
      );
    },
    PROPERTY_TIMEOUT,
  );

  it(
    'Idempotency-Key: anything but 1–255 printable ASCII characters is 400, and writes nothing',
    async () => {
      const routes = fc.oneof(
        fc.tuple(fc.constant('/v1/orders'), jsonBodyText(orderBody())),
        fc.tuple(fc.constant('/v1/marketplace/orders/import'), jsonBodyText(importBody())),
      );
      const cases = fc
        .tuple(routes, idempotencyKey)
        .filter(([[, text]]) => isJsonText(text))
        .map(([[path, text], key]): [HostileRequest, string] => [
          {
            method: 'POST',
            path,
            headers: { authorization: `Bearer ${appToken}`, 'idempotency-key': key },
            body: { text, contentType: 'application/json' },
          },
          key,
        ]);
      const keyed = (key: string, body: string): [HostileRequest, string] => [
        example('/v1/orders', body, { 'idempotency-key': key }),
        key,
      ];
      const unknownLine = `[{"product_id":${foreignProductId},"quantity":1}]`;
      await fc.assert(
        fc.asyncProperty(cases, ([r, key]) => expectHandledWithoutWrites(r, key)),
        {
          ...runs(150),
          examples: [
            [keyed('caf\u00e9', validOrderText())],
            [keyed(' ', validOrderText())],
            [keyed('k'.repeat(256), validOrderText())],
            [keyed(`hostile-${randomBytes(4).toString('hex')}`, withItems(unknownLine))],
          ],
        },
      );
    },
    PROPERTY_TIMEOUT,
  );

  it(
    'any method on any path (known prefixes, hostile segments) answers in the error shape',
    async () => {
      const templates = [
        '/builders/oauth/token',
        '/builders/oauth/:x',
        '/.well-known/:x',
        '/health/:x',
        '/metrics',
        '/v1',
        '/v1/products/:x',
        '/v1/orders/:x',
        '/v1/orders/:x/status',
        '/v1/orders/:x/:x',
        '/v1/events',
        '/v1/events/:x',
        '/v1/webhook-endpoints/:x',
        '/v1/webhook-endpoints/:x/:x',
        '/v1/webhook-endpoints/:x/deliveries/:x/redeliver',
        '/v1/customers/:x',
        '/v1/customers/me/:x',
        '/v1/customers/me/orders/:x',
        '/v1/marketplace/orders/import/:x',
        '/v1/marketplace/orders/import/:x/:x/:x',
        '/:x',
      ];
      const path = fc.oneof(
        fc
          .tuple(
            fc.constantFrom(...templates),
            fc.array(hostileSegment, { minLength: 3, maxLength: 3 }),
          )
          .map(([template, segments]) => {
            let i = 0;
            return template.replace(/:x/g, () => segments[i++]);
          }),
        fc.array(hostileSegment, { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
      );
      const method = fc.constantFrom<HostileMethod>(
        'GET',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'OPTIONS',
      );
      const cases = fc
        .tuple(method, withQuery(path), headers(appAuth()), strayBody)
        .map(([m, p, h, b]): HostileRequest => ({ method: m, path: p, headers: h, body: b }))
        .filter(sendable);
      await fc.assert(
        fc.asyncProperty(cases, (r) => expectHandledWithoutWrites(r)),
        runs(200),
      );
    },
    PROPERTY_TIMEOUT,
  );
});

/** The oracle itself: each kind of violation is caught, and the error shape passes. */
describe('hostile-input response checks', () => {
  const request: HostileRequest = { method: 'GET', path: '/v1/orders/1', headers: {} };
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    ({
      status,
      text: typeof body === 'string' ? body : JSON.stringify(body),
      body,
      headers: { 'x-request-id': 'r-1', 'content-type': 'application/json', ...headers },
    }) as unknown as Response;
  const error = { error: 'not_found', error_description: 'order 1 not found' };

  it.each<[string, Response, RegExp, Record<string, string>?]>([
    ['a 5xx', answer(500, { ...error, request_id: 'r-1' }), /a 5xx/],
    ['no X-Request-Id', answer(404, error, { 'x-request-id': '' }), /no X-Request-Id/],
    [
      'a sane X-Request-Id not echoed',
      answer(200, {}, { 'x-request-id': 'other' }),
      /was not echoed/,
      { 'x-request-id': 'trace-1' },
    ],
    [
      'a body that is not JSON',
      answer(404, 'Not Found', { 'content-type': 'text/plain' }),
      /not application\/json/,
    ],
    ['an extra key', answer(404, { ...error, statusCode: 404 }), /other keys: statusCode/],
    ['no error_description', answer(404, { error: 'not_found' }), /error_description/],
    ['details not {field, message}', answer(400, { ...error, details: [{ f: 1 }] }), /detail/],
    [
      'a detail with an extra key',
      answer(409, { ...error, details: [{ field: 'status', message: 'm', current_status: 'x' }] }),
      /current_status/,
    ],
    [
      'an insufficient_stock detail without its figures',
      answer(422, {
        error: 'insufficient_stock',
        error_description: 'short',
        details: [{ field: 'items[0].quantity', message: 'm', product_id: 1 }],
      }),
      /requested/,
    ],
    [
      'a stack trace',
      answer(400, { ...error, error_description: 'x\n    at Foo.bar (/app/dist/src/a.js:1:2)' }),
      /leaks internals/,
    ],
    [
      'SQL text',
      answer(400, { ...error, error_description: 'SELECT id FROM orders WHERE 1' }),
      /leaks internals: SELECT/,
    ],
    [
      'a driver message',
      answer(400, { ...error, error_description: 'violates check "x"' }),
      /leaks internals: violates/,
    ],
  ])('reject %s', (_name, response, problem, headers = {}) => {
    expect(() => expectContractResponse({ ...request, headers }, response)).toThrow(problem);
  });

  it('accept the error shape, and an echo of the request that looks like internals', () => {
    const details = [{ field: 'status', message: 'must be one of …' }];
    expectContractResponse(request, answer(200, { id: 1 }));
    expectContractResponse(request, answer(400, { ...error, details }));
    expectContractResponse(request, answer(499, { ...error, request_id: 'r-1' }));
    const echo: HostileRequest = { ...request, path: '/v1/node_modules' };
    expectContractResponse(
      echo,
      answer(404, { ...error, error_description: 'GET /v1/node_modules' }),
    );
  });

  it('a write on a rejected request is caught, a write on an accepted one is not', () => {
    const before = { orders: '1' };
    const after = { orders: '2' };
    expect(() => expectNothingWritten(request, answer(400, error), before, after)).toThrow(
      /rejected request wrote: orders: 1 → 2/,
    );
    expectNothingWritten(request, answer(201, { id: 2 }), before, after);
  });
});

/** Only what Node's HTTP client puts on the wire (it throws on other header bytes). */
function sendable(request: HostileRequest): boolean {
  return Object.values(request.headers).every((v) => v === undefined || isSendableHeaderValue(v));
}

/** JSON that the body parser accepts (it refuses `__proto__` and `constructor` members). */
function isJsonText(text: string): boolean {
  if (/"(?:__proto__|constructor)"\s*:/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

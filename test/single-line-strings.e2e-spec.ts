import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newShop, orderBodyFor, placeOrder, type Shop } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** Values no single-line string takes (docs/BEHAVIOUR.md#limits). */
const NOT_ONE_LINE = ['UPS\r\n', 'a\nb', 'a\rb', 'a\tb', 'bell\u0007', 'nel\u0085', 'del\u007f'];
const BLANK = [' ', '   ', '\u00a0', '\u200b', '\u3164'];

/** Section 4: single-line strings refuse control characters and blank values; notes take line breaks and tabs. */
describe('single-line strings', () => {
  let t: TestApp;
  let shop: Shop;
  const auth = () => ({ authorization: `Bearer ${shop.token}` });

  beforeAll(async () => {
    t = await createTestApp();
    shop = await newShop(t);
  });
  afterAll(() => t.close());

  async function paidOrder(): Promise<{ id: number; version: number }> {
    const order = await placeOrder(t, shop);
    const res = await t.http
      .post(`/v1/orders/${order.id}/status`)
      .set(auth())
      .send({ status: 'paid' });
    expect(res.status).toBe(200);
    return res.body as { id: number; version: number };
  }

  const expect400 = (res: { status: number; body: { error?: string } }, what: unknown) =>
    expect({ what, status: res.status, error: res.body.error }).toEqual({
      what,
      status: 400,
      error: 'validation_failed',
    });

  describe('tracking', () => {
    it('company and number refuse CR/LF, tabs and control characters, and blank values', async () => {
      const order = await paidOrder();
      const path = `/v1/orders/${order.id}/fulfillments`;
      for (const bad of [...NOT_ONE_LINE, ...BLANK]) {
        for (const tracking of [
          { company: bad, number: '1Z' },
          { company: 'UPS', number: bad },
        ]) {
          const res = await t.http.post(path).set(auth()).send({ tracking });
          expect400(res, tracking);
          const field = tracking.company === bad ? 'tracking.company' : 'tracking.number';
          expect(res.body.details).toEqual([
            {
              field,
              message: BLANK.includes(bad)
                ? 'must not be blank'
                : 'must be on one line, without control characters',
            },
          ]);
        }
      }
      const fulfillments = await t.http.get(path).set(auth());
      expect(fulfillments.body.data).toEqual([]);
    });

    it('url: https without a user or password part, at most 2,000 characters', async () => {
      const order = await paidOrder();
      const path = `/v1/orders/${order.id}/fulfillments`;
      for (const url of [
        'https://user:pass@carrier.example/track/1',
        'https://user@carrier.example/track/1',
        'http://carrier.example/track/1',
        'https://carrier.example/track/1\r\nX-Injected: 1',
        `https://carrier.example/${'a'.repeat(1977)}`,
      ]) {
        const res = await t.http
          .post(path)
          .set(auth())
          .send({ tracking: { company: 'UPS', number: '1Z', url } });
        expect400(res, url);
        expect(res.body.details).toEqual([
          {
            field: 'tracking.url',
            message:
              'must be an https URL of at most 2000 characters, without a user or password part',
          },
        ]);
      }
      const longest = `https://carrier.example/${'a'.repeat(1976)}`;
      const ok = await t.http
        .post(path)
        .set(auth())
        .send({ tracking: { company: 'UPS', number: '1Z', url: longest } });
      expect(ok.status).toBe(201);
      expect(ok.body.tracking.url).toBe(longest);

      const patched = await t.http
        .patch(`${path}/${ok.body.id}`)
        .set(auth())
        .send({ tracking: { company: 'UPS', number: '1Z', url: 'https://u:p@carrier.example/' } });
      expect400(patched, 'PATCH');
      const patchedName = await t.http
        .patch(`${path}/${ok.body.id}`)
        .set(auth())
        .send({ tracking: { company: 'DHL\n', number: '1Z' } });
      expect400(patchedName, 'PATCH company');
    });
  });

  describe('tags and notes', () => {
    it('a tag of one space (or any blank) is refused; so are tags with control characters', async () => {
      const order = await placeOrder(t, shop);
      for (const tag of [...BLANK, 'vip\n', 'a\tb']) {
        const res = await t.http
          .patch(`/v1/orders/${order.id}`)
          .set(auth())
          .send({ tags: ['ok', tag] });
        expect400(res, tag);
      }
      const list = await t.http.get(`/v1/orders?tag=%20`).set(auth());
      expect(list.status).toBe(400);
      const read = await t.http.get(`/v1/orders/${order.id}`).set(auth());
      expect(read.body).toMatchObject({ version: 1, tags: [] });
    });

    it('notes hold line breaks and tabs, not other control characters', async () => {
      const order = await placeOrder(t, shop);
      const note = 'Leave at the door.\r\nCode:\t1234\n';
      const ok = await t.http.patch(`/v1/orders/${order.id}`).set(auth()).send({ note });
      expect(ok.status).toBe(200);
      expect(ok.body.note).toBe(note);
      for (const bad of ['\u001b[2J', 'bell\u0007', 'nel\u0085']) {
        expect400(
          await t.http.patch(`/v1/orders/${order.id}`).set(auth()).send({ note: bad }),
          bad,
        );
      }
      const cancelled = await t.http
        .post(`/v1/orders/${order.id}/cancel`)
        .set(auth())
        .send({ reason: 'customer', note: 'Called:\nwrong size' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.cancellation.note).toBe('Called:\nwrong size');
    });
  });

  describe('names, addresses, sku, reasons and references on every route', () => {
    it('order create: customer and address fields', async () => {
      for (const [section, field] of [
        ['customer', 'name'],
        ['customer', 'phone'],
        ['shipping_address', 'country'],
        ['shipping_address', 'city'],
        ['shipping_address', 'district'],
        ['shipping_address', 'address'],
        ['shipping_address', 'postal_code'],
      ] as const) {
        for (const bad of ['a\nb', ' ']) {
          const valid = orderBodyFor(shop);
          const body = { ...valid, [section]: { ...valid[section], [field]: bad } };
          const res = await t.http.post('/v1/orders').set(auth()).send(body);
          expect400(res, { section, field, bad });
          expect(res.body.details[0].field).toBe(`${section}.${field}`);
        }
      }
      const valid = orderBodyFor(shop);
      const kept = { ...valid, customer: { ...valid.customer, name: ' Ada  Lovelace ' } };
      const ok = await t.http.post('/v1/orders').set(auth()).send(kept);
      expect(ok.status).toBe(201);
      expect(ok.body.customer.name).toBe(' Ada  Lovelace ');
    });

    it('refund and inventory reasons; product names; customer names', async () => {
      const order = await paidOrder();
      for (const reason of ['', ' ', 'damaged\n']) {
        expect400(
          await t.http
            .post(`/v1/orders/${order.id}/refunds`)
            .set(auth())
            .send({ amount: 1, reason }),
          reason,
        );
      }
      const product = await t.http
        .post('/v1/products')
        .set(auth())
        .send({ sku: 'LINE-1', name: 'Tee\r\n', price: 1 });
      expect400(product, 'product name');
      const made = await t.http
        .post('/v1/products')
        .set(auth())
        .send({ sku: 'LINE-1', name: 'Tee', price: 1 });
      expect(made.status).toBe(201);
      expect400(
        await t.http.patch(`/v1/products/${made.body.id}`).set(auth()).send({ name: ' ' }),
        'patch name',
      );
      expect400(
        await t.http
          .post(`/v1/products/${made.body.id}/inventory`)
          .set(auth())
          .send({ adjustment: 1, reason: 'count\u0000' }),
        'inventory reason',
      );
      expect400(
        await t.http
          .post(`/v1/products/${made.body.id}/inventory`)
          .set(auth())
          .send({ adjustment: 1, reason: '\u3000' }),
        'inventory reason blank',
      );
      expect400(
        await t.http.post('/v1/customers/register').set(auth()).send({
          name: 'Ada\u0085',
          email: 'line@example.com',
          password: 'plum-Orbit-42-lantern',
        }),
        'customer name',
      );
    });

    it('marketplace import: sku, name and external order id', async () => {
      const line = { sku: 'S-1', name: 'Tee', quantity: 1, unit_price: 1, total: 1 };
      const base = {
        marketplace: 'shop',
        external_order_id: 'EXT-1',
        customer: { name: 'Ada', email: 'ada@example.com' },
        shipping_address: { country: 'TR', city: 'Istanbul', address: 'Moda 1' },
        items: [line],
      };
      for (const body of [
        { ...base, external_order_id: 'EXT\n1' },
        { ...base, external_order_id: ' ' },
        { ...base, items: [{ ...line, sku: 'S\t1' }] },
        { ...base, items: [{ ...line, name: '\u200b' }] },
        { ...base, customer: { ...base.customer, name: 'A\rB' } },
      ]) {
        expect400(await t.http.post('/v1/marketplace/orders/import').set(auth()).send(body), body);
      }
    });
  });
});

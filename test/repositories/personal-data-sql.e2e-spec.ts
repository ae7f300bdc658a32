import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postalAreaSql,
  redactedEventDataSql,
  redactedOrderSql,
} from '../../src/customers/personal-data.sql.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

/** The redaction expressions of an erasure, evaluated by PostgreSQL on documents of every shape. */
describe('personal-data SQL expressions', () => {
  let r: RepositoryDatabase;
  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());

  const evaluate = async (expression: string, value: unknown): Promise<unknown> => {
    const [{ result }] = await r.inspect.query<Array<{ result: unknown }>>(
      `SELECT ${expression} AS result FROM (SELECT $1::jsonb AS doc) d`,
      [JSON.stringify(value)],
    );
    return result;
  };

  it.each([
    ['SW1A 1AA', 'SW1A'],
    ['94105-1234', '94105'],
    ['1234 AB', '1234'],
    ['34710', null],
    ['JohnSmith 1', null],
    ['a@b.com x', null],
    ['', null],
  ])('postal code %j keeps %j', async (code, area) => {
    const [{ result }] = await r.inspect.query<Array<{ result: string | null }>>(
      `SELECT ${postalAreaSql('$1::text')} AS result`,
      [code],
    );
    expect(result).toBe(area);
  });

  it('an Order loses its person and keeps the rest', async () => {
    const order = {
      id: 7,
      total: '10.00',
      customer: { id: 3, name: 'Ada', email: 'ada@example.com', phone: '+1' },
      shipping_address: {
        country: 'GB',
        city: 'London',
        district: 'Soho',
        address: '1 Lane',
        postal_code: 'W1D 3QU',
      },
      items: [{ sku: 'X' }],
    };
    expect(await evaluate(redactedOrderSql('doc'), order)).toEqual({
      ...order,
      customer: { id: 3, name: null, email: null, phone: null },
      shipping_address: {
        country: 'GB',
        city: 'London',
        district: null,
        address: null,
        postal_code: 'W1D',
      },
    });
  });

  it('each part on its own; any other shape unchanged', async () => {
    expect(await evaluate(redactedOrderSql('doc'), { customer: { name: 'Ada' } })).toEqual({
      customer: { name: null, email: null, phone: null },
    });
    expect(
      await evaluate(redactedOrderSql('doc'), { shipping_address: { address: 'x', city: 'y' } }),
    ).toEqual({
      shipping_address: { address: null, city: 'y', district: null, postal_code: null },
    });
    for (const other of [[1, 2], 'text', 42, null, { customer: 'Ada' }, {}]) {
      expect(await evaluate(redactedOrderSql('doc'), other)).toEqual(other);
    }
  });

  it("an event's data: its object (order or customer) and its order", async () => {
    const order = { id: 1, customer: { email: 'a@x.io' }, shipping_address: { address: 'x' } };
    const redacted = {
      id: 1,
      customer: { email: null, name: null, phone: null },
      shipping_address: { address: null, district: null, postal_code: null },
    };
    expect(
      await evaluate(redactedEventDataSql('doc', 'false'), { object: { id: 9 }, order }),
    ).toEqual({ object: { id: 9 }, order: redacted });
    expect(await evaluate(redactedEventDataSql('doc', 'false'), { object: order })).toEqual({
      object: redacted,
    });
    expect(
      await evaluate(redactedEventDataSql('doc', 'true'), {
        object: { id: 3, name: 'Ada', email: 'a@x.io', phone: null, email_verified: true },
      }),
    ).toEqual({
      object: { id: 3, name: null, email: null, phone: null, email_verified: true },
    });
    expect(await evaluate(redactedEventDataSql('doc', 'false'), { object: 'x' })).toEqual({
      object: 'x',
    });
  });
});

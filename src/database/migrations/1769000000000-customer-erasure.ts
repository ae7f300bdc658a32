import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer erasure (docs/BEHAVIOUR.md#customer-data-rights): an erased customer keeps its row
 * (orders and events name its id) without name, email, phone or password; an erased order keeps
 * its money, items and dates without the person's name, email, phone, street and district. Each
 * table gets `erased_at`, and a rule that only an erased row lacks those fields: added NOT VALID
 * (checked for new and changed rows) and validated by the next migration, outside this one's
 * exclusive lock. Dropping NOT NULL and adding a column without a default rewrite nothing.
 */
export class CustomerErasure1769000000000 implements MigrationInterface {
  name = 'CustomerErasure1769000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      ALTER TABLE customers
        ADD COLUMN erased_at timestamptz,
        ALTER COLUMN name DROP NOT NULL,
        ALTER COLUMN email DROP NOT NULL,
        ALTER COLUMN password_hash DROP NOT NULL,
        ADD CONSTRAINT customers_erased_check CHECK (
          erased_at IS NOT NULL
          OR (name IS NOT NULL AND email IS NOT NULL AND password_hash IS NOT NULL)) NOT VALID`);
    await q.query(`
      ALTER TABLE orders
        ADD COLUMN erased_at timestamptz,
        ALTER COLUMN customer_name DROP NOT NULL,
        ALTER COLUMN customer_email DROP NOT NULL,
        ALTER COLUMN shipping_address DROP NOT NULL,
        ADD CONSTRAINT orders_erased_check CHECK (
          erased_at IS NOT NULL
          OR (customer_name IS NOT NULL AND customer_email IS NOT NULL
              AND shipping_address IS NOT NULL)) NOT VALID`);
  }

  /**
   * Erased rows get placeholders (an email no one can receive, unique per customer; a password
   * hash nothing matches), so the NOT NULL rules can come back: the erased data stays erased.
   */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      UPDATE customers SET name = '[erased]', email = 'erased-' || id || '@erased.invalid',
        password_hash = '!'
      WHERE erased_at IS NOT NULL`);
    await q.query(`
      UPDATE orders SET customer_name = '[erased]', customer_email = '[erased]',
        shipping_address = '[erased]'
      WHERE erased_at IS NOT NULL`);
    await q.query(`
      ALTER TABLE orders
        DROP CONSTRAINT orders_erased_check,
        DROP COLUMN erased_at,
        ALTER COLUMN customer_name SET NOT NULL,
        ALTER COLUMN customer_email SET NOT NULL,
        ALTER COLUMN shipping_address SET NOT NULL`);
    await q.query(`
      ALTER TABLE customers
        DROP CONSTRAINT customers_erased_check,
        DROP COLUMN erased_at,
        ALTER COLUMN name SET NOT NULL,
        ALTER COLUMN email SET NOT NULL,
        ALTER COLUMN password_hash SET NOT NULL`);
  }
}

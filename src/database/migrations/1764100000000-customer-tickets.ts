import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trust in a customer's email (docs/BEHAVIOUR.md#email-trust). `email_verified` starts false for
 * every customer, existing ones included: nothing proved they own their address. Tickets are
 * single-use tokens the app delivers by email; only an HMAC of the token is stored, unique,
 * so a presented token finds its ticket by index. A newer ticket of a type deletes the older
 * ones of the customer (superseded = unknown). Links made earlier by email alone stay.
 */
export class CustomerTickets1764100000000 implements MigrationInterface {
  name = 'CustomerTickets1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE customers ADD COLUMN email_verified boolean NOT NULL DEFAULT false`);
    await q.query(`
      CREATE TABLE customer_tickets (
        tenant_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        customer_id bigint NOT NULL,
        type text NOT NULL CHECK (type IN ('email_verification', 'password_reset')),
        token_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT customer_tickets_token_hash_key UNIQUE (token_hash),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX customer_tickets_customer_idx ON customer_tickets (tenant_id, customer_id, type)`,
    );
    await q.query(`CREATE INDEX customer_tickets_expires_idx ON customer_tickets (expires_at)`);
    // verify-email links the tenant's unlinked orders with the customer's email.
    await q.query(`
      CREATE INDEX orders_unlinked_email_idx ON orders (tenant_id, lower(customer_email))
      WHERE customer_id IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX orders_unlinked_email_idx`);
    await q.query(`DROP TABLE customer_tickets`);
    await q.query(`ALTER TABLE customers DROP COLUMN email_verified`);
  }
}

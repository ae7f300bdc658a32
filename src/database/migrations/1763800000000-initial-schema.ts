import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole first-cut data model (ARCHITECTURE.md "Data").
 *
 * Tenant-owned rows are keyed (tenant_id, id) and reference each other through composite
 * foreign keys that include tenant_id, so the database itself refuses an order line pointing
 * at another tenant's product or an order linked to another tenant's customer. Ids come from
 * identity columns and are globally unique; the API exposes them as integers.
 * Tokens and sessions are keyed by their random UUID (the `jti`/`sid` inside the JWT), the one
 * lookup they need, and indexed tenant first for everything else.
 * Money is bigint minor units (hundredths); never float.
 */
export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE apps (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        id bigint GENERATED ALWAYS AS IDENTITY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        client_id text NOT NULL,
        secret_hash bytea NOT NULL,
        secret_last4 char(4) NOT NULL,
        approved_scopes text[] NOT NULL,
        active boolean NOT NULL DEFAULT true,
        credentials_version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT apps_client_id_key UNIQUE (client_id)
      )`);

    await q.query(`
      CREATE TABLE app_tokens (
        jti uuid PRIMARY KEY,
        tenant_id bigint NOT NULL,
        app_id bigint NOT NULL,
        scopes text[] NOT NULL,
        credentials_version integer NOT NULL,
        issued_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX app_tokens_tenant_app_idx ON app_tokens (tenant_id, app_id, issued_at)`,
    );
    await q.query(
      `CREATE INDEX app_tokens_revoked_idx ON app_tokens (expires_at) WHERE revoked_at IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE customers (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        id bigint GENERATED ALWAYS AS IDENTITY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        email text NOT NULL,
        phone text,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id)
      )`);
    // Unique per tenant, case-insensitively; also serves the lookup at login and order linking.
    await q.query(
      `CREATE UNIQUE INDEX customers_tenant_email_key ON customers (tenant_id, lower(email))`,
    );

    await q.query(`
      CREATE TABLE customer_sessions (
        id uuid PRIMARY KEY,
        tenant_id bigint NOT NULL,
        customer_id bigint NOT NULL,
        app_id bigint NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id) ON DELETE CASCADE,
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX customer_sessions_customer_idx ON customer_sessions (tenant_id, customer_id)`,
    );
    await q.query(
      `CREATE INDEX customer_sessions_app_idx ON customer_sessions (tenant_id, app_id)`,
    );

    await q.query(`
      CREATE TABLE products (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        id bigint GENERATED ALWAYS AS IDENTITY,
        sku text NOT NULL CHECK (char_length(sku) BETWEEN 1 AND 100),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        price_minor bigint NOT NULL CHECK (price_minor >= 0),
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT products_tenant_sku_key UNIQUE (tenant_id, sku)
      )`);

    await q.query(`
      CREATE TABLE orders (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        id bigint GENERATED ALWAYS AS IDENTITY,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'paid', 'preparing', 'shipped', 'cancelled', 'refunded')),
        currency char(3) NOT NULL,
        total_minor bigint NOT NULL CHECK (total_minor >= 0),
        customer_id bigint,
        customer_name text NOT NULL,
        customer_email text NOT NULL,
        customer_phone text,
        shipping_country text NOT NULL,
        shipping_city text NOT NULL,
        shipping_district text,
        shipping_address text NOT NULL,
        shipping_postal_code text,
        source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'marketplace')),
        marketplace text,
        external_order_id text,
        app_id bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT orders_marketplace_fields_check CHECK (
          (source = 'marketplace') = (marketplace IS NOT NULL AND external_order_id IS NOT NULL)),
        -- A marketplace order can exist once, however often its import job runs.
        CONSTRAINT orders_tenant_external_key UNIQUE (tenant_id, marketplace, external_order_id),
        FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
          ON DELETE SET NULL (customer_id),
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id) ON DELETE SET NULL (app_id)
      )`);
    // The list is newest first, optionally by status, optionally by customer.
    await q.query(`CREATE INDEX orders_list_idx ON orders (tenant_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX orders_status_list_idx ON orders (tenant_id, status, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE INDEX orders_customer_list_idx ON orders (tenant_id, customer_id, created_at DESC, id DESC)
      WHERE customer_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE order_items (
        tenant_id bigint NOT NULL,
        order_id bigint NOT NULL,
        line_no smallint NOT NULL CHECK (line_no >= 1),
        product_id bigint,
        sku text NOT NULL,
        name text NOT NULL,
        quantity integer NOT NULL CHECK (quantity >= 1),
        unit_price_minor bigint NOT NULL CHECK (unit_price_minor >= 0),
        total_minor bigint NOT NULL,
        PRIMARY KEY (tenant_id, order_id, line_no),
        CONSTRAINT order_items_total_check CHECK (total_minor = unit_price_minor * quantity),
        FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE,
        FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id)
      )`);

    await q.query(`
      CREATE TABLE order_status_changes (
        tenant_id bigint NOT NULL,
        order_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        from_status text NOT NULL,
        to_status text NOT NULL,
        actor text NOT NULL,
        changed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, order_id, id),
        FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE
      )`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        tenant_id bigint NOT NULL,
        app_id bigint NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        key text NOT NULL,
        request_hash bytea NOT NULL,
        response_status smallint NOT NULL,
        response_body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, app_id, method, path, key),
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`);

    await q.query(`
      CREATE TABLE marketplace_imports (
        tenant_id bigint NOT NULL REFERENCES tenants (id),
        id bigint GENERATED ALWAYS AS IDENTITY,
        marketplace text NOT NULL,
        external_order_id text NOT NULL,
        status text NOT NULL DEFAULT 'queued'
          CHECK (status IN ('queued', 'processing', 'imported', 'failed')),
        payload jsonb NOT NULL,
        order_id bigint,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        app_id bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT marketplace_imports_external_key UNIQUE (tenant_id, marketplace, external_order_id),
        FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id),
        FOREIGN KEY (tenant_id, app_id) REFERENCES apps (tenant_id, id) ON DELETE SET NULL (app_id)
      )`);

    await q.query(`
      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id bigint REFERENCES tenants (id),
        actor text NOT NULL,
        action text NOT NULL,
        target_type text NOT NULL,
        target_id text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audit_log_tenant_idx ON audit_log (tenant_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'audit_log',
      'marketplace_imports',
      'idempotency_keys',
      'order_status_changes',
      'order_items',
      'orders',
      'products',
      'customer_sessions',
      'customers',
      'app_tokens',
      'apps',
      'tenants',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an order records after its creation (docs/BEHAVIOUR.md#order-operations): its version,
 * fulfillment and refund state, cancellation, note, tags and metadata; per line its id and the
 * quantities fulfilled and refunded; fulfillments and refunds as rows of their own.
 *
 * Every new column of `orders` and `order_items` is added with a constant default or none, so
 * PostgreSQL records the default in the catalog instead of rewriting the table: existing
 * orders read as version 1, unfulfilled, nothing refunded, at once and without a scan. The
 * rules on those columns are added NOT VALID (checked for new and changed rows from now on)
 * and validated by the next migration, outside this one's exclusive lock. A line's `id` comes
 * from a sequence for new lines; the next migration numbers the existing ones in batches.
 */
export class OrderOperations1766000000000 implements MigrationInterface {
  name = 'OrderOperations1766000000000';

  async up(q: QueryRunner): Promise<void> {
    // The ALTERs below are instant but need the tables' exclusive lock: given up after 5 s
    // rather than queueing every order read and write behind a long transaction (the
    // migration then fails, nothing is changed, and the next start tries again).
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      ALTER TABLE orders
        ADD COLUMN version integer NOT NULL DEFAULT 1,
        ADD COLUMN fulfillment_status text NOT NULL DEFAULT 'unfulfilled',
        ADD COLUMN refunded_minor bigint NOT NULL DEFAULT 0,
        ADD COLUMN cancel_reason text,
        ADD COLUMN cancel_note text,
        ADD COLUMN cancelled_at timestamptz,
        ADD COLUMN note text,
        ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
        ADD COLUMN tag_keys text[] NOT NULL DEFAULT '{}',
        ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`
      ALTER TABLE orders
        ADD CONSTRAINT orders_version_check CHECK (version >= 1) NOT VALID,
        ADD CONSTRAINT orders_fulfillment_status_check
          CHECK (fulfillment_status IN ('unfulfilled', 'partial', 'fulfilled')) NOT VALID,
        ADD CONSTRAINT orders_refunded_check
          CHECK (refunded_minor >= 0 AND refunded_minor <= total_minor) NOT VALID,
        ADD CONSTRAINT orders_cancellation_check CHECK (
          (cancel_reason IS NULL AND cancel_note IS NULL AND cancelled_at IS NULL)
          OR (cancel_reason IN ('customer', 'fraud', 'inventory', 'declined', 'other')
              AND cancelled_at IS NOT NULL)) NOT VALID`);

    await q.query(`CREATE SEQUENCE order_items_id_seq AS bigint`);
    await q.query(`
      ALTER TABLE order_items
        ADD COLUMN id bigint,
        ADD COLUMN fulfilled_quantity integer NOT NULL DEFAULT 0,
        ADD COLUMN refunded_quantity integer NOT NULL DEFAULT 0`);
    // Only rows inserted from now on take the default; existing rows keep null until numbered.
    await q.query(
      `ALTER TABLE order_items ALTER COLUMN id SET DEFAULT nextval('order_items_id_seq')`,
    );
    await q.query(`ALTER SEQUENCE order_items_id_seq OWNED BY order_items.id`);
    await q.query(`
      ALTER TABLE order_items
        ADD CONSTRAINT order_items_fulfilled_check
          CHECK (fulfilled_quantity >= 0 AND fulfilled_quantity <= quantity) NOT VALID,
        ADD CONSTRAINT order_items_refunded_check
          CHECK (refunded_quantity >= 0 AND refunded_quantity <= quantity) NOT VALID`);

    await q.query(`
      CREATE TABLE fulfillments (
        tenant_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        order_id bigint NOT NULL,
        items jsonb NOT NULL,
        tracking jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX fulfillments_order_idx ON fulfillments (tenant_id, order_id, id)`);
    await q.query(`
      CREATE TABLE refunds (
        tenant_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        order_id bigint NOT NULL,
        amount_minor bigint NOT NULL CHECK (amount_minor > 0),
        currency char(3) NOT NULL,
        items jsonb NOT NULL,
        reason text,
        restocked boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, id),
        FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX refunds_order_idx ON refunds (tenant_id, order_id, id)`);

    // The keys the `tag` and `metadata[KEY]` list filters look up (the next migration indexes
    // them): each prefixed with the tenant, so one tenant's common tag never makes another
    // tenant's lookup read its orders. `tag_keys` are the tags in lower case, folded by the
    // service (JavaScript's full Unicode case mapping, as it folds them to keep the set):
    // lower() would follow the database's locale, ASCII only under C. A metadata key cannot
    // hold '=' (its characters are [A-Za-z0-9_.-]), so "key=value" is unambiguous.
    await q.query(`
      CREATE FUNCTION order_tag_keys(tenant bigint, tag_keys text[]) RETURNS text[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT ARRAY(SELECT tenant::text || ':' || k FROM unnest(tag_keys) AS k) $$`);
    await q.query(`
      CREATE FUNCTION order_metadata_keys(tenant bigint, metadata jsonb) RETURNS text[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT ARRAY(SELECT tenant::text || ':' || key || '=' || value
                         FROM jsonb_each_text(metadata)) $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The next migration's indexes use the functions; after it failed half-way they may exist.
    await q.query(`DROP INDEX IF EXISTS orders_tag_keys_idx, orders_metadata_keys_idx`);
    await q.query(`DROP FUNCTION order_metadata_keys(bigint, jsonb)`);
    await q.query(`DROP FUNCTION order_tag_keys(bigint, text[])`);
    await q.query(`DROP TABLE refunds`);
    await q.query(`DROP TABLE fulfillments`);
    await q.query(`
      ALTER TABLE order_items
        DROP COLUMN refunded_quantity,
        DROP COLUMN fulfilled_quantity,
        DROP COLUMN id`);
    await q.query(`
      ALTER TABLE orders
        DROP COLUMN metadata,
        DROP COLUMN tag_keys,
        DROP COLUMN tags,
        DROP COLUMN note,
        DROP COLUMN cancelled_at,
        DROP COLUMN cancel_note,
        DROP COLUMN cancel_reason,
        DROP COLUMN refunded_minor,
        DROP COLUMN fulfillment_status,
        DROP COLUMN version`);
  }
}

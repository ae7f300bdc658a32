import type { MigrationInterface, QueryRunner } from 'typeorm';
import { minorDigits } from '../../common/currency.js';

/** The scale every amount was stored in before currencies had their own digits: hundredths. */
const LEGACY_DIGITS = 2;

/**
 * Amounts were stored in hundredths whatever the tenant's currency; from here on they are in
 * the currency's own minor units (its ISO 4217 digits, src/common/currency.ts, the same lookup
 * the service renders with). This rewrites every stored amount of the tenants whose currency
 * has other digits (docs/BEHAVIOUR.md#money): × 10 for three digits (KWD, BHD…), exact; ÷ 100
 * for none (JPY, KRW…), exact unless the service took a fraction of a yen, which is rounded
 * half up, line totals and order totals recomputed from the rounded prices so that the
 * order's identities hold (`total_minor = unit_price_minor × quantity` per line, an order
 * refunded in full stays so). Rendered copies (events, stored responses, import payloads)
 * hold decimals and need nothing.
 *
 * Per tenant, in this migration's transaction: those tenants' rows are locked until it
 * commits, no other tenant's are. Only tenants in such currencies have rows to rewrite (none
 * in most databases). Run it with every instance of the release before stopped: one still
 * running would keep writing hundredths.
 */
export class CurrencyMinorUnits1771000000300 implements MigrationInterface {
  name = 'CurrencyMinorUnits1771000000300';

  async up(q: QueryRunner): Promise<void> {
    for (const tenant of await tenantsToRescale(q)) {
      await rescale(q, tenant.id, LEGACY_DIGITS, tenant.digits);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const tenant of await tenantsToRescale(q)) {
      await rescale(q, tenant.id, tenant.digits, LEGACY_DIGITS);
    }
  }
}

async function tenantsToRescale(q: QueryRunner): Promise<Array<{ id: string; digits: number }>> {
  const tenants: Array<{ id: string; currency: string }> = await q.query(
    'SELECT id::text, currency FROM tenants ORDER BY id',
  );
  return tenants
    .map((t) => ({ id: t.id, digits: minorDigits(t.currency) }))
    .filter((t) => t.digits !== LEGACY_DIGITS);
}

/** Every amount of tenant `$1` from `from` digits to `to` digits. */
async function rescale(q: QueryRunner, tenantId: string, from: number, to: number): Promise<void> {
  const statements = to > from ? scaleUp(10 ** (to - from)) : scaleDown(10 ** (from - to));
  for (const statement of statements) await q.query(statement, [tenantId]);
}

/** More digits: every amount × `factor`, exact. */
function scaleUp(factor: number): string[] {
  return [
    `UPDATE products SET price_minor = price_minor * ${factor} WHERE tenant_id = $1`,
    `UPDATE order_items SET unit_price_minor = unit_price_minor * ${factor},
       total_minor = total_minor * ${factor} WHERE tenant_id = $1`,
    `UPDATE orders SET total_minor = total_minor * ${factor},
       refunded_minor = refunded_minor * ${factor} WHERE tenant_id = $1`,
    `UPDATE refunds SET amount_minor = amount_minor * ${factor} WHERE tenant_id = $1`,
  ];
}

/** Fewer digits: every amount ÷ `factor`, rounded half up where it does not divide. */
function scaleDown(factor: number): string[] {
  const round = (column: string) => `((${column} + ${factor / 2}) / ${factor})`;
  return [
    `UPDATE products SET price_minor = ${round('price_minor')} WHERE tenant_id = $1`,
    `UPDATE order_items SET unit_price_minor = ${round('unit_price_minor')},
       total_minor = ${round('unit_price_minor')} * quantity WHERE tenant_id = $1`,
    // Lines first (above): the order's total is their sum; refunded in full stays in full.
    `UPDATE orders o SET total_minor = lines.total,
       refunded_minor = CASE WHEN o.refunded_minor = o.total_minor THEN lines.total
         ELSE least(${round('o.refunded_minor')}, lines.total) END
     FROM (SELECT order_id, sum(total_minor) AS total FROM order_items
           WHERE tenant_id = $1 GROUP BY order_id) AS lines
     WHERE o.tenant_id = $1 AND o.id = lines.order_id`,
    `UPDATE refunds SET amount_minor = greatest(1, ${round('amount_minor')}) WHERE tenant_id = $1`,
  ];
}

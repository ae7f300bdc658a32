import { parseAmount } from '../common/money.js';
import { hasCharLength } from '../common/char-length.js';

export interface ProductInput {
  sku: string;
  name: string;
  priceMinor: number;
  /** Undefined: new products are active, existing ones keep their state. */
  active?: boolean;
  /** Set: stock tracking on, with this many available. Undefined: stock left as it is. */
  stock?: number;
}

/** The largest stock count accepted (API `available`, CLI `--stock` and `stock` column). */
export const MAX_STOCK = 1_000_000_000;

export interface RawProduct {
  sku: string;
  name: string;
  price: string;
  active?: string;
  stock?: string;
}

/** A Map, not an object literal: "constructor" or "__proto__" must not find inherited members. */
const ACTIVE_VALUES = new Map<string, boolean>([
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
  ['yes', true],
  ['no', false],
]);

/**
 * Validates one product as typed by an admin, its price in the tenant's `currency`; returns
 * the input or the reasons it is bad.
 */
export function parseProductInput(
  raw: RawProduct,
  currency: string,
): ProductInput | { errors: string[] } {
  const errors: string[] = [];
  const sku = raw.sku.trim();
  const name = raw.name.trim();
  if (!hasCharLength(sku, 1, 100)) errors.push('sku must be 1 to 100 characters');
  if (!hasCharLength(name, 1, 200)) errors.push('name must be 1 to 200 characters');
  if (
    [raw.sku, raw.name, raw.price, raw.active ?? '', raw.stock ?? ''].some((v) =>
      v.includes('\u0000'),
    )
  ) {
    errors.push('values must not contain NUL characters');
  }
  const price = parseAmount(raw.price, currency);
  const priceMinor = 'minor' in price ? price.minor : undefined;
  if ('problem' in price) errors.push(`price ${price.problem}, got "${raw.price}"`);
  let active: boolean | undefined;
  if (raw.active !== undefined && raw.active.trim() !== '') {
    active = ACTIVE_VALUES.get(raw.active.trim().toLowerCase());
    if (active === undefined) errors.push(`active must be true or false, got "${raw.active}"`);
  }
  let stock: number | undefined;
  if (raw.stock !== undefined && raw.stock.trim() !== '') {
    const text = raw.stock.trim();
    stock = /^\d{1,10}$/.test(text) ? Number(text) : undefined;
    if (stock === undefined || stock > MAX_STOCK) {
      stock = undefined;
      errors.push(`stock must be a whole number from 0 to ${MAX_STOCK}, got "${raw.stock}"`);
    }
  }
  if (errors.length > 0 || priceMinor === undefined) return { errors };
  return { sku, name, priceMinor, active, stock };
}

import { toCanonicalInstant } from '../common/rfc3339.js';
import {
  isNormalFilterValue,
  ORDER_LIST_FILTERS,
  ORDER_LIST_SORTS,
  type OrderListFilters,
  type OrderListSort,
} from './order-list-filters.js';

/**
 * The last order a page served: its sort key as canonical UTC text with microseconds (a JS
 * Date would drop them, and the next page would repeat or skip orders sharing the
 * millisecond), and its id, which breaks ties.
 */
export interface OrderListPosition {
  key: string;
  id: number;
}

/** Where a walk stands and what it walks: a cursor carries its sort and filters. */
export interface OrderListCursor {
  sort: OrderListSort;
  filters: OrderListFilters;
  after: OrderListPosition;
}

/** Generous for the largest filters (a 254-character email, a 100-character external id). */
const MAX_CURSOR_LENGTH = 4096;

/** Opaque to clients: base64url of a small JSON document with its fields in a fixed order. */
export function encodeOrderListCursor(cursor: OrderListCursor): string {
  const filters: Record<string, unknown> = {};
  for (const name of ORDER_LIST_FILTERS) {
    if (cursor.filters[name] !== undefined) filters[name] = cursor.filters[name];
  }
  const document = { v: 1, s: cursor.sort, f: filters, k: cursor.after.key, i: cursor.after.id };
  return Buffer.from(JSON.stringify(document)).toString('base64url');
}

/**
 * undefined unless `text` is a cursor this service made: every field checked before any of
 * it reaches SQL, and one text per cursor (re-encoding gives `text` back), so a truncated,
 * edited or re-ordered cursor is refused rather than read loosely.
 */
export function decodeOrderListCursor(text: string): OrderListCursor | undefined {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const cursor = fromDocument(document);
  return cursor && encodeOrderListCursor(cursor) === text ? cursor : undefined;
}

function fromDocument(document: unknown): OrderListCursor | undefined {
  if (!isRecord(document) || document.v !== 1 || !isRecord(document.f)) return undefined;
  const { s: sort, f: given, k: key, i: id } = document;
  if (!(ORDER_LIST_SORTS as readonly unknown[]).includes(sort)) return undefined;
  if (typeof key !== 'string' || toCanonicalInstant(key) !== key) return undefined;
  if (!Number.isSafeInteger(id) || (id as number) < 1) return undefined;
  const filters: Record<string, unknown> = {};
  for (const name of ORDER_LIST_FILTERS) {
    if (given[name] === undefined) continue;
    if (!isNormalFilterValue(name, given[name])) return undefined;
    filters[name] = given[name];
  }
  // Every value was checked above; the casts only tell the compiler.
  return {
    sort: sort as OrderListSort,
    filters,
    after: { key, id: id as number },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

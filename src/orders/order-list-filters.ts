import { hasCharLength } from '../common/char-length.js';
import { isPlainRecord } from '../common/http/validated.js';
import { toCanonicalInstant } from '../common/rfc3339.js';
import { isMetadataKey, isTag, METADATA_VALUE_MAX } from './operations/order-patch.js';
import { ORDER_STATUSES, type OrderStatus } from './order-status.js';

export const ORDER_LIST_SORTS = ['-created_at', 'created_at', '-updated_at', 'updated_at'] as const;
export type OrderListSort = (typeof ORDER_LIST_SORTS)[number];
export const DEFAULT_ORDER_LIST_SORT: OrderListSort = '-created_at';

export const ORDER_SOURCES = ['api', 'marketplace'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

/**
 * What a marketplace import accepts as a marketplace name (docs/BEHAVIOUR.md#marketplace-import).
 */
export const MARKETPLACE_NAME = /^[a-z0-9_-]{1,50}$/;

/**
 * The list's filters in normal form: `status` distinct and in the enum's order, instants as
 * canonical UTC text (rfc3339.ts). Absent means "not filtered".
 */
export interface OrderListFilters {
  status?: OrderStatus[];
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  email?: string;
  customer_id?: number;
  source?: OrderSource;
  marketplace?: string;
  external_order_id?: string;
  /** Orders carrying this tag, in any case. */
  tag?: string;
  /** Orders whose metadata holds each of these keys with exactly this value. */
  metadata?: Record<string, string>;
}

/** At most this many `metadata[KEY]=VALUE` filters in one list request. */
export const MAX_METADATA_FILTERS = 10;

export type OrderListFilterName = keyof OrderListFilters;

/** Every filter, in the order cursors write them. */
export const ORDER_LIST_FILTERS = [
  'status',
  'created_after',
  'created_before',
  'updated_after',
  'updated_before',
  'email',
  'customer_id',
  'source',
  'marketplace',
  'external_order_id',
  'tag',
  'metadata',
] as const satisfies readonly OrderListFilterName[];

/** Statuses in normal form: distinct, in the enum's order. */
export function normalStatuses(statuses: readonly OrderStatus[]): OrderStatus[] {
  return ORDER_STATUSES.filter((s) => statuses.includes(s));
}

const isInstant = (value: unknown) =>
  typeof value === 'string' && toCanonicalInstant(value) === value;

/**
 * What a normal-form value of each filter looks like: a decoded cursor must pass these
 * before any of it reaches SQL (a forged cursor must answer 400, never a database error).
 */
const NORMAL_FORM: Record<OrderListFilterName, (value: unknown) => boolean> = {
  status: (value) =>
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((s) => (ORDER_STATUSES as readonly unknown[]).includes(s)) &&
    normalStatuses(value as OrderStatus[]).join() === value.join(),
  created_after: isInstant,
  created_before: isInstant,
  updated_after: isInstant,
  updated_before: isInstant,
  email: (value) => typeof value === 'string' && hasCharLength(value, 3, 254),
  customer_id: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  source: (value) => (ORDER_SOURCES as readonly unknown[]).includes(value),
  marketplace: (value) => typeof value === 'string' && MARKETPLACE_NAME.test(value),
  external_order_id: (value) => typeof value === 'string' && hasCharLength(value, 1, 100),
  tag: isTag,
  metadata: isMetadataFilter,
};

/** `metadata[KEY]=VALUE` pairs: 1 to 10 keys of the metadata key form, string values. */
export function isMetadataFilter(value: unknown): value is Record<string, string> {
  if (!isPlainRecord(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length >= 1 &&
    entries.length <= MAX_METADATA_FILTERS &&
    entries.every(
      ([key, v]) =>
        isMetadataKey(key) && typeof v === 'string' && hasCharLength(v, 0, METADATA_VALUE_MAX),
    )
  );
}

export function isNormalFilterValue(name: OrderListFilterName, value: unknown): boolean {
  return NORMAL_FORM[name](value);
}

/**
 * Whether two normal-form values select the same orders: statuses as sets (normal form
 * makes that plain equality), the email in any case (the filter ignores case), instants
 * (canonical, so one instant has one text) and the rest exactly.
 */
export function sameFilterValue(name: OrderListFilterName, a: unknown, b: unknown): boolean {
  if (name === 'status') return (a as string[]).join() === (b as string[]).join();
  if (name === 'email' || name === 'tag') {
    return (a as string).toLowerCase() === (b as string).toLowerCase();
  }
  if (name === 'metadata') {
    const x = Object.entries(a as Record<string, string>);
    const y = b as Record<string, string>;
    return (
      x.length === Object.keys(y).length && x.every(([k, v]) => Object.hasOwn(y, k) && y[k] === v)
    );
  }
  return a === b;
}

import { AppError, type ErrorDetail } from '../common/errors/app-error.js';
import { toCanonicalInstant } from '../common/rfc3339.js';

/** The product list's filters, in normal form (`updated_after` canonical UTC text). */
export interface ProductListFilters {
  sku?: string;
  active?: boolean;
  updated_after?: string;
}

const FILTER_NAMES = ['sku', 'active', 'updated_after'] as const;

/** What one list request reads: by ascending id, from an offset (page) or after an id (cursor). */
export interface ProductListSpec {
  filters: ProductListFilters;
  limit: number;
  offset: number;
  afterId?: number;
}

/** The query as the DTO validated it. */
export interface ProductListQueryFields {
  page?: number;
  limit: number;
  cursor?: string;
  sku?: string;
  active?: boolean;
  updated_after?: string;
}

export type ProductListRequest =
  { mode: 'page'; page: number; spec: ProductListSpec } | { mode: 'cursor'; spec: ProductListSpec };

/** Opaque to clients: base64url of a small JSON document with its fields in a fixed order. */
export function encodeProductCursor(filters: ProductListFilters, afterId: number): string {
  const f: Record<string, unknown> = {};
  for (const name of FILTER_NAMES) if (filters[name] !== undefined) f[name] = filters[name];
  return Buffer.from(JSON.stringify({ v: 1, f, i: afterId })).toString('base64url');
}

/** undefined unless `text` is a cursor this service made (re-encoding gives it back). */
export function decodeProductCursor(
  text: string,
): { filters: ProductListFilters; afterId: number } | undefined {
  if (text.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof document !== 'object' || document === null) return undefined;
  const { v, f, i } = document as Record<string, unknown>;
  if (v !== 1 || typeof f !== 'object' || f === null || Array.isArray(f)) return undefined;
  if (!Number.isSafeInteger(i) || (i as number) < 0) return undefined;
  const given = f as Record<string, unknown>;
  const filters: ProductListFilters = {};
  if (typeof given.sku === 'string') filters.sku = given.sku;
  if (typeof given.active === 'boolean') filters.active = given.active;
  if (typeof given.updated_after === 'string') {
    if (toCanonicalInstant(given.updated_after) !== given.updated_after) return undefined;
    filters.updated_after = given.updated_after;
  }
  const cursor = { filters, afterId: i as number };
  return encodeProductCursor(filters, cursor.afterId) === text ? cursor : undefined;
}

/**
 * The validated query → a page, or the continuation of a cursor's walk. A cursor carries its
 * filters: those the query repeats must be the same, and `page` is refused with it.
 */
export function toProductListRequest(query: ProductListQueryFields): ProductListRequest {
  const filters: ProductListFilters = {};
  if (query.sku !== undefined) filters.sku = query.sku;
  if (query.active !== undefined) filters.active = query.active;
  if (query.updated_after !== undefined) {
    filters.updated_after = toCanonicalInstant(query.updated_after);
  }
  if (query.cursor === undefined) {
    const page = query.page ?? 1;
    return {
      mode: 'page',
      page,
      spec: { filters, limit: query.limit, offset: (page - 1) * query.limit },
    };
  }
  if (query.page !== undefined) {
    throw invalid([{ field: 'page', message: 'cannot be combined with cursor' }]);
  }
  const cursor = decodeProductCursor(query.cursor);
  if (!cursor) {
    throw invalid([{ field: 'cursor', message: 'must be a meta.next_cursor from this list' }]);
  }
  const conflicts: ErrorDetail[] = FILTER_NAMES.filter(
    (name) => filters[name] !== undefined && filters[name] !== cursor.filters[name],
  ).map((name) => ({
    field: name,
    message:
      cursor.filters[name] === undefined
        ? 'is not a filter of the cursor; omit it or start a new walk'
        : "differs from the cursor's; omit it or repeat the value the walk started with",
  }));
  if (conflicts.length > 0) throw invalid(conflicts);
  return {
    mode: 'cursor',
    spec: { filters: cursor.filters, limit: query.limit, offset: 0, afterId: cursor.afterId },
  };
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError('validation_failed', `${details[0].field} ${details[0].message}`, {
    details,
  });
}

import { applyDecorators } from '@nestjs/common';
import { ApiHideProperty, ApiProperty, ApiPropertyOptional, ApiQuery } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { hasOnlyKeys, isPlainRecord } from '../../common/http/validated.js';
import { QueryInt } from '../../common/pagination.js';
import { CommaListOf } from '../../common/query-list.js';
import { Chars, IsDateTime, KeysAsSent, Satisfies } from '../../common/validation.js';
import { isTag } from '../operations/order-patch.js';
import {
  DEFAULT_ORDER_LIST_SORT,
  isMetadataFilter,
  MARKETPLACE_NAME,
  MAX_METADATA_FILTERS,
  ORDER_LIST_SORTS,
  ORDER_SOURCES,
  type OrderListSort,
  type OrderSource,
} from '../order-list-filters.js';
import { ORDER_STATUSES, type OrderStatus } from '../order-status.js';

/**
 * /docs pre-fills every filter with its example ("Try it out"): together they must still find
 * the demo's orders (made today, pending), so the bounds are far apart.
 */
const AFTER_EXAMPLE = '2026-01-01T00:00:00Z';
const BEFORE_EXAMPLE = '2100-01-01T00:00:00.000000+02:00';

const instant = (example: string, description: string) =>
  ApiPropertyOptional({ type: String, format: 'date-time', example, description });

/**
 * `GET /v1/orders` and `GET /v1/customers/me/orders`. `page` has no default here, unlike
 * PageQuery: combining it with `cursor` is an error, so it must be known whether it was sent.
 */
export class ListOrdersQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    default: 1,
    description: 'Page mode (with `meta.total`); not combinable with `cursor`',
  })
  @IsOptional()
  @QueryInt(1)
  page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 20,
    description: 'May change from one cursor page to the next',
  })
  @QueryInt(1, 100)
  limit = 20;

  @ApiPropertyOptional({
    description:
      'A `meta.next_cursor` from an earlier page: the walk continues after it, with its sort and filters (omit them, or repeat them unchanged)',
  })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({
    enum: ORDER_LIST_SORTS,
    default: DEFAULT_ORDER_LIST_SORT,
    description: 'Ties are broken by `id`, in the same direction',
  })
  @IsOptional()
  @IsIn(ORDER_LIST_SORTS)
  sort?: OrderListSort;

  @ApiPropertyOptional({
    type: String,
    description: `One status or several, comma-separated (${ORDER_STATUSES.join(', ')})`,
    example: 'pending,paid',
  })
  @IsOptional()
  @CommaListOf(ORDER_STATUSES, 'statuses')
  status?: OrderStatus[];

  @instant(AFTER_EXAMPLE, 'Orders created at or after this instant')
  @IsOptional()
  @IsDateTime()
  created_after?: string;

  @instant(BEFORE_EXAMPLE, 'Orders created before this instant')
  @IsOptional()
  @IsDateTime()
  created_before?: string;

  @instant(
    AFTER_EXAMPLE,
    'Orders last changed at or after this instant (`sort=updated_at` to sync)',
  )
  @IsOptional()
  @IsDateTime()
  updated_after?: string;

  @instant(BEFORE_EXAMPLE, 'Orders last changed before this instant')
  @IsOptional()
  @IsDateTime()
  updated_before?: string;

  @ApiPropertyOptional({
    format: 'email',
    maxLength: 254,
    description: "The order's customer email, exactly but in any case",
  })
  @IsOptional()
  @IsEmail()
  @Chars(3, 254)
  email?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'The linked registered customer',
  })
  @IsOptional()
  @QueryInt(1)
  customer_id?: number;

  @ApiPropertyOptional({ enum: ORDER_SOURCES })
  @IsOptional()
  @IsIn(ORDER_SOURCES)
  source?: OrderSource;

  @ApiPropertyOptional({ pattern: MARKETPLACE_NAME.source })
  @IsOptional()
  @Matches(MARKETPLACE_NAME, { message: 'must be 1 to 50 characters of a-z, 0-9, _ and -' })
  marketplace?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @Chars(1, 100)
  external_order_id?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 40,
    description: 'Orders carrying this tag, in any case',
  })
  @IsOptional()
  @Satisfies(isTag, 'must be a tag: 1 to 40 characters without control characters')
  tag?: string;

  // Documented as a deepObject query parameter by ApiMetadataFilter (on the list routes).
  @ApiHideProperty()
  @IsOptional()
  @KeysAsSent()
  @Satisfies(
    isMetadataFilter,
    `must be metadata[KEY]=VALUE pairs: 1 to ${MAX_METADATA_FILTERS} keys of 1 to 40 characters from [A-Za-z0-9_.-], values of at most 500 characters`,
  )
  metadata?: Record<string, string>;

  /** `metadata[KEY]=VALUE` query keys gathered into one `metadata` object (validated.ts). */
  static prepare(query: unknown): unknown {
    if (!isPlainRecord(query)) return query;
    const keys = Object.keys(query).filter((key) => METADATA_PARAM.test(key));
    if (keys.length === 0 || 'metadata' in query) return query;
    const rest = Object.fromEntries(
      Object.entries(query).filter(([key]) => !METADATA_PARAM.test(key)),
    );
    const metadata = Object.fromEntries(
      keys.map((key) => [METADATA_PARAM.exec(key)![1], query[key]]),
    );
    return { ...rest, metadata };
  }

  /**
   * The instance the ValidationPipe makes of a certainly valid query of the common shape
   * (`page`, `limit`, `sort`, `status`, `cursor`), else undefined (the pipe decides): the
   * decorators above, written out (validated.ts). order-queries.dto.spec.ts holds the two to
   * the same answers.
   */
  static fastParse(query: unknown): ListOrdersQuery | undefined {
    if (!isPlainRecord(query) || !hasOnlyKeys(query, FAST_LIST_KEYS)) return undefined;
    const parsed = new ListOrdersQuery();
    for (const key of Object.keys(query)) {
      const value = query[key];
      if (typeof value !== 'string') return undefined;
      if (key === 'page' || key === 'limit') {
        const number = DIGITS.test(value) ? Number(value) : 0;
        if (number < 1 || (key === 'limit' && number > 100)) return undefined;
        parsed[key] = number;
      } else if (key === 'sort') {
        if (!(ORDER_LIST_SORTS as readonly string[]).includes(value)) return undefined;
        parsed.sort = value as OrderListSort;
      } else if (key === 'status') {
        const statuses = value.split(',');
        if (!statuses.every((s) => (ORDER_STATUSES as readonly string[]).includes(s))) {
          return undefined;
        }
        parsed.status = [...new Set(statuses)] as OrderStatus[];
      } else {
        parsed.cursor = value;
      }
    }
    return parsed;
  }
}

const METADATA_PARAM = /^metadata\[([^\]]*)\]$/;

/** OpenAPI of the `metadata[KEY]=VALUE` filter of both order lists. */
export function ApiMetadataFilter(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'metadata',
      required: false,
      style: 'deepObject',
      explode: true,
      schema: {
        type: 'object',
        additionalProperties: { type: 'string', maxLength: 500 },
        // Empty: /docs would otherwise pre-fill `metadata[additionalProp1]=string`, which
        // finds nothing ("Try it out" on the demo data must find its orders).
        example: {},
      },
      description: `\`metadata[KEY]=VALUE\`: orders whose metadata holds KEY with exactly VALUE; up to ${MAX_METADATA_FILTERS} keys, all must hold`,
    }),
  );
}

const FAST_LIST_KEYS = new Set(['page', 'limit', 'sort', 'status', 'cursor']);
/** What toStrictInt turns into a number (its minus sign aside: negatives are left to the pipe). */
const DIGITS = /^\d{1,15}$/;

export class ChangeStatusDto {
  @ApiProperty({
    enum: ORDER_STATUSES,
    description:
      'pending → paid | cancelled; paid → preparing | refunded; preparing → shipped | refunded; shipped → refunded',
    example: 'paid',
  })
  @IsIn(ORDER_STATUSES)
  status!: OrderStatus;
}

/** The OpenAPI description of both order lists: how to page, and what a walk sees. */
export const ORDER_LIST_DESCRIPTION = [
  'Filters combine with AND. Times are RFC 3339 with at most 6 fractional digits; `*_after` is inclusive, `*_before` exclusive. `status` takes several values, comma-separated.',
  '',
  '**Page mode** (no `cursor`): `meta` = `{page, limit, total, total_pages, next_cursor, has_more}`, `total` exact over the same filtered set. Its `next_cursor` starts a walk.',
  '',
  '**Cursor mode** (`cursor` = a `meta.next_cursor`): keyset pagination, `meta` = `{limit, next_cursor, has_more}`, no count, so every page costs the same. The cursor carries its sort and filters: omit them, or repeat them unchanged (a different value is 400 `validation_failed` naming the field). `limit` may change between pages; `page` with `cursor` is 400. Walk until `has_more` is false.',
  '',
  'What a walk sees while orders are created and changed:',
  '- `sort=-created_at` (default) or `created_at`: the key never changes, so every order that matched when the walk started is served exactly once. Orders created during a descending walk land ahead of it and are not served; during an ascending walk they are served once, after the others.',
  '- `sort=updated_at`, the way to sync (`sort=updated_at&updated_after=<last sync>`, or keep the last cursor): every order is served, never the same version twice; an order changed during the walk comes again later with its newer `updated_at`, so the last version served is the latest.',
  '- `sort=-updated_at`: an order changed during the walk jumps to the head and may be left out of that walk. Use `updated_at` ascending to sync.',
  '',
  'A page costs about the same at any size of the list for every sort with any of the equality filters and a time range on the sorted timestamp. A time range on the other timestamp (`updated_after` with `sort=-created_at`) is not read in index order: filter and sort by the same timestamp for steady latency.',
  '',
  'Ascending sorts serve only orders whose key is more than one second older than the oldest write transaction still open, so an order that commits late can never land behind a walk that already passed its key: the walk lags that much behind the present, and a long transaction delays it. For ascending sorts `next_cursor` is returned even when `has_more` is false: call it again later for what came since. For descending sorts it is null at the end.',
].join('\n');

export const ORDER_LIST_VALIDATION =
  'a parameter out of range, malformed (never clamped) or repeated (a list is one comma-separated value), `page` with `cursor`, a cursor this list did not make, or a sort or filter that differs from the cursor’s (details name the field)';

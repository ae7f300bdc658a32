import { InitialSchema1763800000000 } from './1763800000000-initial-schema.js';
import { IdempotencyResponseHeaders1763900000000 } from './1763900000000-idempotency-response-headers.js';
import { RateLimits1764000000000 } from './1764000000000-rate-limits.js';

/** In order. Listed explicitly: globs do not survive bundlers or ESM loaders. */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  IdempotencyResponseHeaders1763900000000,
  RateLimits1764000000000,
];

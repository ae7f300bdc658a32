import { isSingleLine } from '../../common/string-rules.js';
import { AppError } from '../../common/errors/app-error.js';

export const MAX_TAGS = 50;
export const MAX_METADATA_KEYS = 50;
export const METADATA_KEY = /^[A-Za-z0-9_.-]{1,40}$/;
/** Keys of the pattern that reach an object's prototype: refused (3.4), never stored. */
export const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);
export const METADATA_VALUE_MAX = 500;

/** A metadata key as 3.4 takes it: the pattern, and none of the three reserved names. */
export function isMetadataKey(key: string): boolean {
  return METADATA_KEY.test(key) && !RESERVED_METADATA_KEYS.has(key);
}

/** A tag: a single-line string of 1–40 characters (docs/BEHAVIOUR.md#limits). */
export function isTag(value: unknown): value is string {
  return isSingleLine(value, 1, 40);
}

/** The fields a `PATCH` may change, as validated (PatchOrderDto). */
export interface OrderPatch {
  note?: string | null;
  tags?: string[] | null;
  metadata?: Record<string, string | null> | null;
}

export interface PatchableFields {
  note: string | null;
  tags: string[];
  metadata: Record<string, string>;
}

export const PATCHED_FIELDS = ['note', 'tags', 'metadata'] as const satisfies ReadonlyArray<
  keyof PatchableFields
>;
export type PatchedField = (typeof PATCHED_FIELDS)[number];

/**
 * The order's fields after `patch`, and the names of those that changed (none: a no-op, which
 * writes nothing). Tags become a set: one per spelling regardless of case (the first given
 * wins), sorted case-insensitively. Metadata merges as RFC 7396 does; more than 50 keys after
 * the merge is 400.
 */
export function applyPatch(
  current: PatchableFields,
  patch: OrderPatch,
): { next: PatchableFields; changed: PatchedField[] } {
  const next: PatchableFields = { ...current };
  if (patch.note !== undefined) next.note = patch.note;
  if (patch.tags !== undefined) next.tags = normalTags(patch.tags ?? []);
  if (patch.metadata !== undefined) next.metadata = merged(current.metadata, patch.metadata);
  const changed: PatchedField[] = [];
  if (next.note !== current.note) changed.push('note');
  if (next.tags.join('\u0000') !== current.tags.join('\u0000')) changed.push('tags');
  if (!sameRecord(next.metadata, current.metadata)) changed.push('metadata');
  return { next, changed };
}

/** A tag as the set and the `tag` filter compare it: in lower case (full Unicode mapping). */
export function tagKey(tag: string): string {
  return tag.toLowerCase();
}

/** Distinct regardless of case (the first spelling kept), sorted case-insensitively. */
export function normalTags(tags: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const tag of tags) {
    const key = tagKey(tag);
    if (!byKey.has(key)) byKey.set(key, tag);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, t]) => t);
}

function merged(
  current: Record<string, string>,
  patch: Record<string, string | null> | null,
): Record<string, string> {
  if (patch === null) return {};
  // A Map: a key such as "__proto__" must be an entry like any other, never a prototype.
  const next = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  if (next.size > MAX_METADATA_KEYS) {
    throw new AppError(
      'validation_failed',
      `metadata would hold ${next.size} keys after the merge; at most ${MAX_METADATA_KEYS}`,
      { details: [{ field: 'metadata', message: `at most ${MAX_METADATA_KEYS} keys` }] },
    );
  }
  // Keys in a stable order, so equal metadata is stored and shown alike.
  return Object.fromEntries([...next.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k])
  );
}

import { AppError } from '../errors/app-error.js';

/**
 * Versions as entity tags (RFC 9110 §8.8.3, §13.1): a versioned resource's `ETag` is its
 * version in quotes, `"3"`. A strong tag: the version changes with every change of the
 * resource's representation.
 */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** What an `If-Match` header asks: any current version (`*`), or one of these. */
export type VersionPrecondition = { any: true } | { any: false; versions: number[] };

/** One element of an entity-tag list: optional weak prefix, a quoted opaque tag, then a comma or the end. */
const LIST_ELEMENT = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;

/**
 * `If-Match` (RFC 9110 §13.1.1), parsed; undefined when absent. Strong comparison: a weak
 * tag never matches, and a tag that is not a version of ours matches nothing (the write
 * then fails its precondition). A header that is not an entity-tag list is refused with 400.
 */
export function parseIfMatch(header: string | undefined): VersionPrecondition | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  const versions: number[] = [];
  for (const tag of tagsOf(header, 'If-Match')) {
    if (!tag.weak && /^[1-9]\d{0,9}$/.test(tag.opaque)) versions.push(Number(tag.opaque));
  }
  return { any: false, versions };
}

/**
 * Whether `If-None-Match` (RFC 9110 §13.1.2) matches the resource's version: `*`, or a tag
 * equal to its ETag under weak comparison. A malformed header is refused with 400.
 */
export function noneMatchHits(header: string | undefined, version: number): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const current = String(version);
  return tagsOf(header, 'If-None-Match').some((tag) => tag.opaque === current);
}

/** Whether a write's `If-Match` admits the resource's current version. */
export function preconditionHolds(
  precondition: VersionPrecondition | undefined,
  version: number,
): boolean {
  return precondition === undefined || precondition.any || precondition.versions.includes(version);
}

/** 412 `precondition_failed`, with the current ETag and version. */
export function preconditionFailed(what: string, version: number): AppError {
  return new AppError(
    'precondition_failed',
    `If-Match does not name the current version of ${what} (version ${version}); read it again and retry`,
    { headers: { etag: etagOf(version) }, currentVersion: version },
  );
}

function tagsOf(header: string, name: string): Array<{ weak: boolean; opaque: string }> {
  const tags: Array<{ weak: boolean; opaque: string }> = [];
  LIST_ELEMENT.lastIndex = 0;
  while (LIST_ELEMENT.lastIndex < header.length) {
    const element = LIST_ELEMENT.exec(header);
    if (element === null) break;
    tags.push({ weak: element[1] !== undefined, opaque: element[2] });
  }
  if (tags.length === 0 || LIST_ELEMENT.lastIndex < header.length) {
    throw new AppError('validation_failed', `${name} must be * or a list of entity tags`, {
      details: [{ field: name, message: 'must be * or a list of quoted entity tags' }],
    });
  }
  return tags;
}

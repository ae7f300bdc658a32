import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import {
  etagOf,
  noneMatchHits,
  parseIfMatch,
  preconditionFailed,
  preconditionHolds,
} from './entity-tags.js';

const version = fc.integer({ min: 1, max: 2_000_000_000 });

describe('entity tags of versions (RFC 9110)', () => {
  it('If-Match: * or a list of strong tags; a weak or foreign tag matches nothing', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch(' * ')).toEqual({ any: true });
    expect(parseIfMatch('"3"')).toEqual({ any: false, versions: [3] });
    expect(parseIfMatch('"1", W/"2" ,"x,y", "4"')).toEqual({ any: false, versions: [1, 4] });
    expect(parseIfMatch('"03"')).toEqual({ any: false, versions: [] });
  });

  it('any malformed header is 400 validation_failed, never a match', () => {
    for (const header of ['', ' ', '3', '"3', '3"', '"3" "4"', '"3",,"4"', 'W/3', '*, "3"']) {
      expect(() => parseIfMatch(header)).toThrow(AppError);
      expect(() => noneMatchHits(header, 3)).toThrow(AppError);
    }
  });

  it('a version’s own ETag always matches, strongly and weakly; another never does', () => {
    fc.assert(
      fc.property(version, version, (current, other) => {
        const tag = etagOf(current);
        expect(preconditionHolds(parseIfMatch(tag), current)).toBe(true);
        expect(noneMatchHits(tag, current)).toBe(true);
        expect(noneMatchHits(`W/${tag}`, current)).toBe(true);
        expect(preconditionHolds(parseIfMatch(`W/${tag}`), current)).toBe(false);
        const otherMatches =
          preconditionHolds(parseIfMatch(etagOf(other)), current) ||
          noneMatchHits(etagOf(other), current);
        expect(otherMatches).toBe(other === current);
      }),
    );
  });

  it('no header always holds; 412 names the current version and ETag', () => {
    expect(preconditionHolds(undefined, 9)).toBe(true);
    const failed = preconditionFailed('order 1', 9);
    expect(failed.code).toBe('precondition_failed');
    expect(failed.options).toMatchObject({ currentVersion: 9, headers: { etag: '"9"' } });
  });

  it('arbitrary header text either parses or is refused with 400, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (header) => {
        let outcome = 'parsed';
        try {
          parseIfMatch(header);
        } catch (error) {
          outcome = error instanceof AppError ? error.code : String(error);
        }
        expect(['parsed', 'validation_failed']).toContain(outcome);
      }),
    );
  });
});

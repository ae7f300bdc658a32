import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRfc3339DateTime, toCanonicalInstant } from './rfc3339.js';

const two = (n: number) => String(n).padStart(2, '0');

describe('RFC 3339 date-times', () => {
  it('reads offsets and fractions into canonical UTC text with microseconds', () => {
    expect(toCanonicalInstant('2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05.000000Z');
    expect(toCanonicalInstant('2026-01-02T03:04:05.123456+02:00')).toBe(
      '2026-01-02T01:04:05.123456Z',
    );
    expect(toCanonicalInstant('2026-01-02t03:04:05.1z')).toBe('2026-01-02T03:04:05.100000Z');
    expect(toCanonicalInstant('2026-01-01T00:30:00-01:45')).toBe('2026-01-01T02:15:00.000000Z');
    expect(toCanonicalInstant('2026-01-01T00:00:00+00:01')).toBe('2025-12-31T23:59:00.000000Z');
    expect(toCanonicalInstant('2024-02-29T23:59:59.999999-00:00')).toBe(
      '2024-02-29T23:59:59.999999Z',
    );
    expect(toCanonicalInstant('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000000Z');
  });

  it.each([
    '',
    '2026-01-02',
    '2026-01-02T03:04:05',
    '2026-01-02 03:04:05Z',
    '2026-01-02T03:04Z',
    '2026-01-02T03:04:05.1234567Z',
    '2026-01-02T03:04:05.Z',
    '2026-01-02T03:04:05+0200',
    '2026-01-02T03:04:05+02',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2016-12-31T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00+00:01',
    '9999-12-31T23:59:59-00:01',
    '+2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00Z ',
    '２０２６-01-01T00:00:00Z',
    '1767225600',
    'now',
  ])('refuses %j', (text) => {
    expect(toCanonicalInstant(text)).toBeUndefined();
    expect(isRfc3339DateTime(text)).toBe(false);
  });

  it('agrees with Date on every millisecond instant, in any offset', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0002-01-01T00:00:00Z'),
          max: new Date('9998-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (date, extraMicros, offsetMinutes) => {
          const local = new Date(date.getTime() + offsetMinutes * 60_000);
          const year = String(local.getUTCFullYear()).padStart(4, '0');
          const fraction = `${String(date.getUTCMilliseconds()).padStart(3, '0')}${String(extraMicros).padStart(3, '0')}`;
          const sign = offsetMinutes < 0 ? '-' : '+';
          const offset = `${sign}${two(Math.floor(Math.abs(offsetMinutes) / 60))}:${two(Math.abs(offsetMinutes) % 60)}`;
          const text = `${year}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())}T${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}.${fraction}${offset}`;
          const iso = date.toISOString();
          const expected = `${iso.slice(0, 19)}.${fraction}Z`;
          expect(toCanonicalInstant(text)).toBe(expected);
          // Canonical text is a fixed point.
          expect(toCanonicalInstant(expected)).toBe(expected);
        },
      ),
    );
  });

  it('never throws, and whatever it accepts is canonical', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const canonical = toCanonicalInstant(text);
        expect(canonical === undefined || toCanonicalInstant(canonical) === canonical).toBe(true);
      }),
    );
  });
});

/**
 * RFC 3339 `date-time` (section 5.6), strictly: `YYYY-MM-DDTHH:MM:SS`, optional fraction of at
 * most 6 digits (PostgreSQL keeps microseconds and would round more away silently), then `Z`
 * or `±HH:MM`. `T` and `Z` may be lower case (RFC 3339 5.6, note). The date must exist; a
 * leap second (`:60`) is refused, PostgreSQL has none.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant `text` names, as canonical UTC text with six fractional digits
 * (`2026-01-02T01:04:05.123456Z`), which PostgreSQL reads exactly as a timestamptz; undefined
 * when `text` is not a strict RFC 3339 date-time or the instant falls outside years 0001–9999.
 * A canonical text maps to itself.
 */
export function toCanonicalInstant(text: string): string | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const micros = (m[7] ?? '').padEnd(6, '0');
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;

  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return undefined;
  }
  date.setUTCHours(hour, minute, second, 0);
  const sign = m[8] === '-' ? -1 : 1;
  const utc = new Date(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  const utcYear = utc.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return undefined;
  return `${pad(utcYear, 4)}-${pad(utc.getUTCMonth() + 1, 2)}-${pad(utc.getUTCDate(), 2)}T${pad(
    utc.getUTCHours(),
    2,
  )}:${pad(utc.getUTCMinutes(), 2)}:${pad(utc.getUTCSeconds(), 2)}.${micros}Z`;
}

export function isRfc3339DateTime(value: unknown): value is string {
  return typeof value === 'string' && toCanonicalInstant(value) !== undefined;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

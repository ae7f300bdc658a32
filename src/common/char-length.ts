/**
 * Length in Unicode code points: what PostgreSQL's char_length() counts, so a bound checked
 * here is the bound the database CHECKs. validator.js's isLength counts differently (it
 * folds variation selectors), which let 400-character names through to a 200-character CHECK.
 */
export function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

export function hasCharLength(value: string, min: number, max: number): boolean {
  // Cheap exits: a code point is 1 or 2 UTF-16 units.
  if (value.length < min || value.length > 2 * max) return false;
  const length = charLength(value);
  return length >= min && length <= max;
}

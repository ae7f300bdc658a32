/**
 * A comma-separated query value (`status=paid,shipped`) → its distinct entries. An empty
 * entry (`a,,b`, a trailing comma) or a repeated parameter stays as given, so validation
 * refuses it rather than reading something the client did not write.
 */
export const toCommaList = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const entries = value.split(',');
  return entries.some((e) => e.length === 0) ? value : [...new Set(entries)];
};

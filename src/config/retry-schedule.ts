const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/**
 * WEBHOOK_RETRY_SCHEDULE → the delays (seconds) before each retry: `5s,5m,30m,2h` is four
 * retries after the first attempt. Undefined when the text is not such a list.
 */
export function parseRetrySchedule(text: string): number[] | undefined {
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > 20) return undefined;
  const delays: number[] = [];
  for (const entry of entries) {
    const match = /^(\d{1,6})([smhd])$/.exec(entry);
    if (!match) return undefined;
    const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
    if (seconds < 1 || seconds > 7 * 86_400) return undefined;
    delays.push(seconds);
  }
  return delays;
}

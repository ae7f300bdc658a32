/**
 * A replica's replay lag measured against the primary's own WAL positions, on this process's
 * monotonic clock only (no clock of two servers compared). Each check samples the primary's
 * position, timed from just before it was asked. A replica that replayed up to R stands at
 * least where the primary stood at the last sample at or below R, so its lag is at most the
 * time since that sample was taken: an upper bound, never an undercount. Zero when it has
 * replayed the latest sample.
 */
export class ReplicaLag {
  /** (asked at, primary WAL position), oldest first. */
  private samples: Array<{ at: number; lsn: bigint }> = [];

  constructor(private readonly keepMs: number) {}

  /** Records the primary's position `lsn` (as pg_current_wal_lsn() gives it), asked at `at`. */
  sample(lsn: string, at: number): void {
    this.samples.push({ at, lsn: parseLsn(lsn) });
    // Older samples answer only "lagging more than keepMs", which the oldest kept says too.
    while (this.samples.length > 2 && this.samples[1].at < at - this.keepMs) this.samples.shift();
  }

  /** Milliseconds the replica that replayed up to `replayed` may stand behind, at most. */
  lagMs(replayed: string, now: number): number {
    const position = parseLsn(replayed);
    const latest = this.samples.at(-1);
    if (!latest || position >= latest.lsn) return 0;
    const reached = this.samples.findLast((s) => s.lsn <= position);
    // Behind even the oldest sample kept: at least as far behind as that one is old.
    return now - (reached ?? this.samples[0]).at;
  }
}

/** `16/B374D848` → a comparable number. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!match) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

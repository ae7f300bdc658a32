/**
 * A replica's replay lag measured against the primary's own WAL positions, on this process's
 * clock only (no clock of two servers compared): each check samples the primary's position;
 * a replica's lag is how long ago the primary first stood at a position the replica has not
 * replayed yet. Zero when it has replayed the latest sample; an upper bound otherwise, by at
 * most one check interval.
 */
export class ReplicaLag {
  /** (when, primary WAL position), oldest first. */
  private samples: Array<{ at: number; lsn: bigint }> = [];

  constructor(private readonly keepMs: number) {}

  /** Records the primary's position `lsn` (text as pg_current_wal_lsn() gives it) at `at`. */
  sample(lsn: string, at: number): void {
    this.samples.push({ at, lsn: parseLsn(lsn) });
    // Older samples answer only "lagging more than keepMs", which the oldest kept says too.
    while (this.samples.length > 2 && this.samples[1].at < at - this.keepMs) this.samples.shift();
  }

  /** Milliseconds the replica that replayed up to `replayed` stands behind; 0 when none known. */
  lagMs(replayed: string, now: number): number {
    const position = parseLsn(replayed);
    const behind = this.samples.find((s) => s.lsn > position);
    return behind ? now - behind.at : 0;
  }
}

/** `16/B374D848` → a comparable number. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!match) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

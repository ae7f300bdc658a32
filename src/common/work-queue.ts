/**
 * At most `concurrency` tasks at once, at most `maxWaiting` queued behind them (FIFO); a
 * task that finds the queue full is refused at once with `onFull()`, costing nothing.
 */
export class WorkQueue {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
    private readonly onFull: () => Error,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrency) {
      this.active++;
    } else {
      if (this.waiting.length >= this.maxWaiting) throw this.onFull();
      // The finishing task hands its slot over directly: `active` stays the same.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Tasks running and waiting (for tests and metrics). */
  get size(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}

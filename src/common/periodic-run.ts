/**
 * Work repeated every `intervalMs` in the background: a turn is skipped while the previous
 * one still runs (slow rounds never pile up), failures go to `onError`, and `stop` waits for
 * the running turn. The timer does not keep the process alive.
 */
export class PeriodicRun {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.work()
      .catch(this.onError)
      .finally(() => (this.running = undefined));
  }
}

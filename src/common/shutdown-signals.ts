const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Exit code of a forced stop (a shutdown signal during the shutdown). */
const FORCED = 1;

/**
 * Makes `onSignal` the only handler of the shutdown signals (SIGINT is Ctrl-C, which a
 * terminal sends to its whole foreground process group: `npm`, its shell and this process;
 * an embedded PostgreSQL runs in a session of its own and hears only us). Our shutdown drains
 * in-flight requests and jobs first and stops the embedded database last.
 *
 * A second signal while that runs forces the stop, through `process.exit`, not the signal's
 * default action: exit handlers still run, so the log lines pino holds in its block
 * (logger.ts) are written out.
 */
export function handleShutdownSignals(onSignal: (signal: string) => Promise<void>): void {
  let received = false;
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (received) {
        process.exit(FORCED);
        return;
      }
      received = true;
      void onSignal(signal);
    });
  }
}

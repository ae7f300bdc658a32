const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Makes `onSignal` the only handler of the shutdown signals (SIGINT is Ctrl-C, which a
 * terminal sends to its whole foreground process group: `npm`, its shell and this process;
 * an embedded PostgreSQL runs in a session of its own and hears only us). Our shutdown drains
 * in-flight requests and jobs first and stops the embedded database last.
 */
export function handleShutdownSignals(onSignal: (signal: string) => Promise<void>): void {
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    process.once(signal, () => void onSignal(signal));
  }
}

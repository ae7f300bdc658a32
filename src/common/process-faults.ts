import type { Logger } from 'pino';

/** Process-wide counts, exported in /metrics (http-metrics.ts). */
export const processFaults = { unhandledRejections: 0, uncaughtExceptions: 0 };

/**
 * The last-resort policy for errors nobody handled (docs/SECURITY.md, "Database outages and
 * faults"). Every known source handles its own (job handlers, background loops, pool clients
 * and the listener have their listeners), so reaching here is a bug, logged and counted:
 * - a rejected promise nobody awaited: logged with its job or request id when it carries one,
 *   counted, and the process goes on. The rejection was an operation's own failure; nothing
 *   shared was left half-changed by it, and ending the process would fail every request
 *   in flight, for every tenant.
 * - an exception thrown out of a callback: a synchronous update may have stopped half-way,
 *   so the state of the process is no longer known. Logged and counted, then the process
 *   exits (1) for its supervisor to restart it, as Node's documentation advises.
 */
export function installFaultPolicy(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    processFaults.unhandledRejections++;
    logger.error(
      { err: reason, ...idsOf(reason) },
      'unhandled promise rejection (process goes on)',
    );
  });
  process.on('uncaughtException', (error, origin) => {
    processFaults.uncaughtExceptions++;
    logger.fatal({ err: error, origin, ...idsOf(error) }, 'uncaught exception: exiting');
    logger.flush();
    process.exitCode = 1;
    // Let the log line reach stdout, then end whatever else is pending.
    setTimeout(() => process.exit(1), 100).unref();
  });
}

/** Request and job ids an error may carry (set where it was raised), for the log line. */
function idsOf(reason: unknown): { reqId?: unknown; jobId?: unknown } {
  if (reason === null || typeof reason !== 'object') return {};
  const { requestId, jobId } = reason as { requestId?: unknown; jobId?: unknown };
  return {
    ...(requestId === undefined ? {} : { reqId: requestId }),
    ...(jobId === undefined ? {} : { jobId }),
  };
}

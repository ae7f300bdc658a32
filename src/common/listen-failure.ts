import { StartupError } from './startup-error.js';

/**
 * A failed `listen` in words a newcomer acts on: which port, why, and the variable to change.
 * Anything else is returned as it is.
 */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  const explain: Record<string, string> = {
    EADDRINUSE:
      `port ${port} is already in use on ${host} (EADDRINUSE): stop the process that holds it, ` +
      `or start on another port, e.g. PORT=${port === 3000 ? 3001 : 3000} npm start`,
    EACCES: `port ${port} on ${host} needs privileges this process lacks (EACCES): set PORT to 1024 or above`,
    EADDRNOTAVAIL:
      `HOST=${host} is not an address of this machine (EADDRNOTAVAIL): unset HOST (loopback), ` +
      'or set it to 0.0.0.0 or one of its addresses',
  };
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code && code in explain ? new StartupError(explain[code]) : error;
}

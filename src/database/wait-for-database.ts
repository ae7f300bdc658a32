import pg from 'pg';
import { StartupError } from '../common/startup-error.js';
import { classifyConnectionFailure, redactedUrl } from './connection-failure.js';

export interface WaitOptions {
  /** How long a server that is not there yet (starting, restarting) is waited for. */
  deadlineMs?: number;
  /** Each failed attempt, with its reason. */
  onRetry?: (message: string) => void;
}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 2_000;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Connects once to DATABASE_URL before anything else does. A configuration error (wrong
 * password, unknown database or host: connection-failure.ts) fails at once with its cause; a
 * server that is not answering yet is tried again, each failure logged with its reason, until
 * `deadlineMs` has passed.
 */
export async function waitForDatabase(url: string, options: WaitOptions = {}): Promise<void> {
  const { deadlineMs = 30_000, onRetry = () => {} } = options;
  const started = Date.now();
  for (
    let attempt = 1, delay = FIRST_DELAY_MS;
    ;
    attempt++, delay = Math.min(delay * 2, MAX_DELAY_MS)
  ) {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // A connection that fails later must not be an unhandled 'error' event.
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      const failure = classifyConnectionFailure(error);
      const where = redactedUrl(url);
      const code = failure.code ? ` (${failure.code})` : '';
      if (failure.permanent) {
        throw new StartupError(
          `cannot connect to DATABASE_URL ${where}: ${failure.reason}${code}; ${failure.hint}`,
        );
      }
      if (Date.now() - started + delay > deadlineMs) {
        throw new StartupError(
          `cannot connect to DATABASE_URL ${where}: ${failure.reason}${code}; gave up after ${Math.round((Date.now() - started) / 1000)} s (${attempt} attempts)`,
        );
      }
      onRetry(
        `database not reachable yet (attempt ${attempt}): ${failure.reason}${code}; retrying`,
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

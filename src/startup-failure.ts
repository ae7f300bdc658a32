import { StartupError } from './common/startup-error.js';
import { ConfigError } from './config/app-config.js';

/**
 * What an entry point (server, worker, CLI) prints when it cannot start: the message alone for
 * a failure it explains (configuration, database, port), the stack for anything else (a bug).
 */
export function startupFailureMessage(error: unknown): string {
  if (error instanceof ConfigError || error instanceof StartupError) return error.message;
  if (error instanceof Error) return `start-up failed: ${error.stack ?? error.message}`;
  return `start-up failed: ${String(error)}`;
}

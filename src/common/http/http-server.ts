import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { AppConfig } from '../../config/app-config.js';
import { connectionCap, openFileLimit } from './connection-cap.js';
import { answerConnect, answerExpectationFailed } from './connection-guards.js';

/** At most one "connections refused" warning per this many milliseconds. */
const DROP_WARNING_INTERVAL_MS = 60_000;

/**
 * Fastify's `serverFactory`: Node's HTTP server with the limits that protect the process
 * from slow, stuck or too many clients, and answers in the service's error shape where Node would
 * answer bare or not at all. Fastify applies none of its own timeouts to a server made here.
 */
export function httpServerFactory(
  config: AppConfig,
  logger: Logger,
): (handler: RequestListener) => Server {
  return (handler) => {
    const server = createServer(
      {
        // Headers must arrive within 10 s (or the request timeout if shorter), the whole
        // request within REQUEST_TIMEOUT_MS; Node checks every second.
        headersTimeout: Math.min(10_000, config.REQUEST_TIMEOUT_MS),
        requestTimeout: config.REQUEST_TIMEOUT_MS,
        connectionsCheckingInterval: 1_000,
        // Node would answer a missing Host with a bare 400; our hook answers it instead.
        requireHostHeader: false,
      },
      handler,
    );
    server.maxConnections = maxConnections(config, logger);
    warnOnDrops(server, logger);
    server.on('checkExpectation', answerExpectationFailed);
    server.on('connect', answerConnect);
    return server;
  };
}

/** One client's flood of idle or slow connections must not use up the file descriptors. */
function maxConnections(config: AppConfig, logger: Logger): number {
  const fileLimit = openFileLimit();
  const cap = connectionCap(config.HTTP_MAX_CONNECTIONS, fileLimit);
  if (cap < config.HTTP_MAX_CONNECTIONS) {
    logger.warn(
      { configured: config.HTTP_MAX_CONNECTIONS, openFileLimit: fileLimit, cap },
      'HTTP_MAX_CONNECTIONS is above 80% of the open-file limit; capped',
    );
  }
  return cap;
}

/** Connections refused at the cap, counted and logged at most once a minute. */
function warnOnDrops(server: Server, logger: Logger): void {
  let dropped = 0;
  let lastWarning = -Infinity;
  server.on('drop', () => {
    dropped++;
    const now = performance.now();
    if (now - lastWarning < DROP_WARNING_INTERVAL_MS) return;
    logger.warn(
      { dropped, maxConnections: server.maxConnections },
      'connections refused: the server holds its maximum of open connections',
    );
    dropped = 0;
    lastWarning = now;
  });
}

import { readFileSync } from 'node:fs';

/** Share of the open-file limit connections may take: the rest is for the pool, logs, files. */
const FILE_LIMIT_SHARE = 0.8;

/**
 * The most client connections one process holds open (`server.maxConnections`): the
 * configured number, but never more than 80% of the process's open-file soft limit, so a
 * flood of idle or slow connections cannot use up the descriptors that the database pool
 * and everything else need. Beyond it, Node closes new connections as they arrive.
 */
export function connectionCap(configured: number, fileLimit: number | undefined): number {
  if (fileLimit === undefined) return configured;
  return Math.max(1, Math.min(configured, Math.floor(fileLimit * FILE_LIMIT_SHARE)));
}

/** The soft limit on open files (`ulimit -n`), where the system tells it (Linux). */
export function openFileLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let limits: string;
  try {
    limits = read();
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

import { userInfo } from 'node:os';

/**
 * Who acts through the admin CLI: an operating-system user. Passed first to the services the
 * CLI calls, as a RequestContext is by the API, and written into the audit log.
 */
export interface AdminContext {
  kind: 'admin';
  actor: string;
}

/** The context of the user running this process. */
export function currentAdmin(): AdminContext {
  let actor = 'cli';
  try {
    actor = `cli:${userInfo().username}`;
  } catch {
    // No user name (a container without /etc/passwd entry): plain "cli".
  }
  return { kind: 'admin', actor };
}

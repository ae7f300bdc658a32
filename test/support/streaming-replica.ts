import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/database/free-port.js';
import { run, type OwnedPostgres } from './owned-postgres.js';

/** A hot standby of an owned primary, streaming from it. */
export interface StreamingReplica {
  /** Connection string of database `database` on the replica. */
  urlOf(database: string): string;
  /** pg_wal_replay_pause() / pg_wal_replay_resume(). */
  pauseReplay(paused: boolean): Promise<void>;
  /** Replayed up to the primary's present position (waits for it). */
  caughtUp(): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
}

/**
 * A streaming replica of `primary`, made as PostgreSQL documents a base backup without
 * pg_basebackup (the embedded binaries do not ship it): pg_backup_start() on the primary, a
 * copy of its data directory, pg_backup_stop()'s backup_label written into the copy, then
 * `standby.signal` and `primary_conninfo` (with a replication slot, so the primary keeps the
 * WAL a stopped replica still needs). Started with the same binaries on a port of its own.
 */
export async function startStreamingReplica(
  primary: OwnedPostgres,
  name: string,
): Promise<StreamingReplica> {
  const { dataDir, root, asUser, pgCtl } = primary.files;
  const replicaDir = join(root, `replica-${name}`);
  const admin = new pg.Client({ connectionString: primary.url });
  await admin.connect();
  try {
    await admin.query(`SELECT pg_create_physical_replication_slot($1)`, [`slot_${name}`]);
    await admin.query(`SELECT pg_backup_start($1, true)`, [name]);
    await cp(dataDir, replicaDir, {
      recursive: true,
      // Not part of a base backup: the primary's lock file and options, and its WAL (the
      // replica streams what it needs from the backup's start on).
      filter: (source) =>
        !['postmaster.pid', 'postmaster.opts'].some((f) => source === join(dataDir, f)) &&
        // Nor the primary's replication slots (a standby would keep them, pinning its WAL).
        !['pg_wal', 'pg_replslot'].some((d) => source.startsWith(`${join(dataDir, d)}/`)),
    });
    const [stopped] = (
      await admin.query<{ labelfile: string }>(`SELECT labelfile FROM pg_backup_stop(false)`)
    ).rows;
    await writeFile(join(replicaDir, 'backup_label'), stopped.labelfile);
  } finally {
    await admin.end();
  }
  const primaryUrl = new URL(primary.url);
  await writeFile(join(replicaDir, 'standby.signal'), '');
  await writeFile(
    join(replicaDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryUrl.port} user=postgres ` +
      `password=${decodeURIComponent(primaryUrl.password)} application_name=${name}'\n` +
      `primary_slot_name = 'slot_${name}'\n`,
    { flag: 'a' },
  );
  await run('mkdir', ['-p', join(replicaDir, 'pg_wal', 'archive_status')], {});
  if (asUser.uid !== undefined)
    await run('chown', ['-R', `${asUser.uid}:${asUser.gid}`, replicaDir], {});
  await run('chmod', ['0700', replicaDir], {});

  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200`;
  const ctl = (...args: string[]) =>
    run(
      pgCtl,
      ['-D', replicaDir, '-l', join(root, `replica-${name}.log`), '-w', '-t', '60', ...args],
      asUser,
    );
  await ctl('-o', options, 'start');
  const urlOf = (database: string) => {
    const url = new URL(primary.url);
    url.port = String(port);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const query = async (sql: string): Promise<Array<Record<string, unknown>>> => {
    const client = new pg.Client({ connectionString: urlOf('postgres') });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  };
  return {
    urlOf,
    pauseReplay: async (paused) => {
      await query(paused ? 'SELECT pg_wal_replay_pause()' : 'SELECT pg_wal_replay_resume()');
    },
    caughtUp: async () => {
      const target = await primaryLsn(primary.url);
      for (;;) {
        const [row] = await query(`SELECT pg_last_wal_replay_lsn() >= '${target}'::pg_lsn AS done`);
        if (row.done) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: async (mode = 'fast') => {
      await ctl('-m', mode, 'stop');
    },
    start: async () => {
      await ctl('-o', options, 'start');
    },
  };
}

async function primaryLsn(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]
      .lsn;
  } finally {
    await client.end();
  }
}

import pg from 'pg';

/**
 * Who uses an embedded server: every process on it (servers, workers, the CLI) holds a shared
 * advisory lock on a connection of its own for as long as it runs. The kernel closes that
 * connection when a process dies, however it dies, so a crashed user releases it too.
 *
 * Leaving, a process gives up its share and asks for the lock alone: it gets it only when no
 * other user holds a share, and then it is the last user and stops the server while still
 * holding it (a newcomer waits on the lock and finds the server going; it then starts its own).
 */
const USERS_LOCK = 4_129_337_041; // any fixed key; one per server (the lock lives in `postgres`)

export interface EmbeddedUse {
  /** The process ids of the other users, when this one is not the last. */
  release(): Promise<{ last: true } | { last: false; others: number[] }>;
  /** Closes the lock's connection (after the server was stopped, or left to the others). */
  close(): Promise<void>;
}

/** Takes a share of the server at `url` (its `postgres` database); rejects if it cannot. */
export async function useEmbeddedServer(url: string): Promise<EmbeddedUse> {
  const client = new pg.Client({
    connectionString: url,
    application_name: `storefront pid ${process.pid}`,
  });
  // The server going away under the lock (stopped by its last user) is no error of ours.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT pg_advisory_lock_shared($1)', [USERS_LOCK]);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    release: async () => {
      await client.query('SELECT pg_advisory_unlock_shared($1)', [USERS_LOCK]);
      const { rows } = await client.query<{ last: boolean }>(
        'SELECT pg_try_advisory_lock($1) AS last',
        [USERS_LOCK],
      );
      if (rows[0].last) return { last: true };
      return { last: false, others: await otherUsers(client) };
    },
    close: () => client.end().catch(() => undefined),
  };
}

/** The users' process ids, from the application name each lock connection carries. */
async function otherUsers(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT a.application_name AS name
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted
        AND ((l.classid::bigint << 32) | l.objid::bigint) = $1`,
    [USERS_LOCK],
  );
  return rows.flatMap((r) => /^storefront pid (\d+)$/.exec(r.name)?.slice(1).map(Number) ?? []);
}

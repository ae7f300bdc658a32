import plans from 'pg-boss/src/plans.js';
import { describe, expect, it } from 'vitest';
import { freePort } from '../database/free-port.js';
import { BossDatabase } from './boss-database.js';

/** A database that is not there: nothing listens on a port just freed. */
async function unreachable(): Promise<{ db: BossDatabase; reported: string[] }> {
  const reported: string[] = [];
  const db = new BossDatabase(`postgres://u:p@127.0.0.1:${await freePort()}/x`, 1, (_, what) =>
    reported.push(what),
  );
  return { db, reported };
}

describe('BossDatabase with the database away', () => {
  it.each([
    ['complete', plans.completeJobs('pgboss')],
    ['fail', plans.failJobsById('pgboss')],
  ])('settling a job (%s) reports the failure and answers "no job changed"', async (_, sql) => {
    const { db, reported } = await unreachable();
    await expect(db.executeSql(sql, ['q', ['id'], null])).resolves.toEqual({
      rows: [{ count: '0' }],
    });
    expect(reported).toEqual(['job outcome not recorded; the job is retried after its expiry']);
    await db.close();
  });

  it('any other statement fails as usual', async () => {
    const { db, reported } = await unreachable();
    await expect(db.executeSql('SELECT 1', [])).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(reported).toEqual([]);
    await db.close();
  });
});

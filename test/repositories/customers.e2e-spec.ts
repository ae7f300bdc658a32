import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomerSessionsRepository } from '../../src/auth/customer-sessions.repository.js';
import { CustomerTicketsRepository } from '../../src/customers/customer-tickets.repository.js';
import { CustomersRepository } from '../../src/customers/customers.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { insertApp, insertCustomer, insertSession, rowOf } from '../support/tenant-rows.js';

interface Customer {
  tenant_id: number;
  password_hash: string;
  email_verified: boolean;
}
interface Session {
  tenant_id: number;
  revoked_at: Date | null;
}

/**
 * Every method through tenant A's path, with rows of tenant B beside A's (the same email in
 * both tenants): B's rows are never read, changed or counted.
 */
describe('customers, customer sessions and customer tickets repositories, two tenants', () => {
  const customers = new CustomersRepository();
  const tickets = new CustomerTicketsRepository();
  const sessions = new CustomerSessionsRepository();
  let r: RepositoryDatabase;
  let appA: number;
  let appB: number;

  beforeAll(async () => {
    r = await repositoryDatabase();
    appA = await insertApp(r.inspect, r.tenantA);
    appB = await insertApp(r.inspect, r.tenantB);
  });
  afterAll(() => r.close());

  /** The same email as a customer of each tenant. */
  async function pair(email: string, hash = 'hash-1'): Promise<{ idA: number; idB: number }> {
    return {
      idA: await insertCustomer(r.inspect, r.tenantA, email, { passwordHash: hash }),
      idB: await insertCustomer(r.inspect, r.tenantB, email, { passwordHash: hash }),
    };
  }

  it('insert: an email taken only in tenant B is free in A; taken in A is refused', async () => {
    const idB = await insertCustomer(r.inspect, r.tenantB, 'insert@example.com');
    const row = await customers.insert(r.a(), {
      name: 'Ann',
      email: 'INSERT@example.com',
      passwordHash: 'h',
    });
    expect(row).toMatchObject({ email: 'INSERT@example.com', email_key: 'insert@example.com' });
    expect((await rowOf<Customer>(r.inspect, 'customers', row!.id))!.tenant_id).toBe(r.tenantA);
    expect(
      await customers.insert(r.a(), {
        name: 'Ann',
        email: 'insert@example.com',
        passwordHash: 'h',
      }),
    ).toBeUndefined();
    expect((await rowOf<Customer>(r.inspect, 'customers', idB))!.tenant_id).toBe(r.tenantB);
  });

  it("lookupForLogin and byEmail find tenant A's customer only", async () => {
    const { idA } = await pair('look@example.com');
    await insertCustomer(r.inspect, r.tenantB, 'only-b@example.com');
    const lookup = await customers.lookupForLogin(r.a(), 'LOOK@example.com');
    expect(lookup.emailKey).toBe('look@example.com');
    expect(lookup.customer?.id).toBe(idA);
    expect(await customers.lookupForLogin(r.a(), 'only-b@example.com')).toEqual({
      emailKey: 'only-b@example.com',
      customer: undefined,
    });
    expect((await customers.byEmail(r.a(), 'look@example.com'))?.id).toBe(idA);
    expect(await customers.byEmail(r.a(), 'only-b@example.com')).toBeUndefined();
  });

  it("byId reads tenant A's customer, never B's by its id", async () => {
    const { idA, idB } = await pair('byid@example.com');
    expect((await customers.byId(r.a(), idA))?.id).toBe(idA);
    expect(await customers.byId(r.a(), idB)).toBeUndefined();
  });

  it("setPasswordHash and replacePasswordHash change tenant A's row only", async () => {
    const { idA, idB } = await pair('hash@example.com', 'old');
    await customers.setPasswordHash(r.a(), idB, 'set-through-a');
    expect(await customers.replacePasswordHash(r.a(), idB, 'old', 'replaced-through-a')).toBe(
      false,
    );
    expect((await rowOf<Customer>(r.inspect, 'customers', idB))!.password_hash).toBe('old');

    expect(await customers.replacePasswordHash(r.a(), idA, 'old', 'new')).toBe(true);
    expect((await rowOf<Customer>(r.inspect, 'customers', idA))!.password_hash).toBe('new');
    await customers.setPasswordHash(r.a(), idA, 'newer');
    expect((await rowOf<Customer>(r.inspect, 'customers', idA))!.password_hash).toBe('newer');
  });

  it("insertSession opens a session for tenant A's customer only", async () => {
    const { idA, idB } = await pair('session@example.com', 'pw');
    const session = {
      scopes: ['customer:read'],
      ttlSeconds: 60,
      passwordHash: 'pw',
      chainId: null,
    };
    const idForB = '00000000-0000-4000-8000-00000000000b';
    expect(
      await customers.insertSession(r.a(), {
        ...session,
        id: idForB,
        customerId: idB,
        appId: appB,
      }),
    ).toBe(false);
    expect(await rowOf(r.inspect, 'customer_sessions', idForB)).toBeUndefined();

    const idForA = '00000000-0000-4000-8000-00000000000a';
    expect(
      await customers.insertSession(r.a(), {
        ...session,
        id: idForA,
        customerId: idA,
        appId: appA,
      }),
    ).toBe(true);
    expect((await rowOf<Session>(r.inspect, 'customer_sessions', idForA))!.tenant_id).toBe(
      r.tenantA,
    );
  });

  it("lockForUpdate and sessionIsLive see tenant A's rows only", async () => {
    const { idA, idB } = await pair('lock@example.com');
    const sessionA = await insertSession(r.inspect, r.tenantA, idA, appA);
    const sessionB = await insertSession(r.inspect, r.tenantB, idB, appB);
    await r.inA(async (db) => {
      expect(await customers.lockForUpdate(db, idA)).toBe(true);
      expect(await customers.lockForUpdate(db, idB)).toBe(false);
      expect(await customers.sessionIsLive(db, sessionA)).toBe(true);
      expect(await customers.sessionIsLive(db, sessionB)).toBe(false);
    });
  });

  it("revokeSession and revokeSessionsOf end tenant A's sessions only", async () => {
    const { idA, idB } = await pair('revoke@example.com');
    const sessionB = await insertSession(r.inspect, r.tenantB, idB, appB);
    expect(await sessions.revokeSession(r.a(), sessionB)).toBeUndefined();
    expect(await sessions.revokeSessionsOf(r.a(), idB)).toEqual([]);
    expect((await rowOf<Session>(r.inspect, 'customer_sessions', sessionB))!.revoked_at).toBeNull();

    const one = await insertSession(r.inspect, r.tenantA, idA, appA);
    const kept = await insertSession(r.inspect, r.tenantA, idA, appA);
    const other = await insertSession(r.inspect, r.tenantA, idA, appA);
    expect(await sessions.revokeSession(r.a(), one)).toEqual({
      expires_at: expect.any(Date),
      chain_id: null,
    });
    const revoked = await sessions.revokeSessionsOf(r.a(), idA, { keep: kept });
    expect(revoked.map((s) => s.id)).toEqual([other]);
    expect((await rowOf<Session>(r.inspect, 'customer_sessions', kept))!.revoked_at).toBeNull();
    expect((await rowOf<Session>(r.inspect, 'customer_sessions', sessionB))!.revoked_at).toBeNull();
  });

  it("markVerified verifies tenant A's customer only", async () => {
    const { idA, idB } = await pair('verify@example.com');
    expect(await customers.markVerified(r.a(), idB)).toBeUndefined();
    expect((await rowOf<Customer>(r.inspect, 'customers', idB))!.email_verified).toBe(false);
    expect((await customers.markVerified(r.a(), idA))?.email_verified).toBe(true);
  });

  describe('tickets', () => {
    async function ticketB(customerId: number): Promise<Buffer> {
      const hash = randomBytes(32);
      await r.inspect.query(
        `INSERT INTO customer_tickets (tenant_id, customer_id, type, token_hash, expires_at)
         VALUES ($1, $2, 'password_reset', $3, now() + interval '1 hour')`,
        [r.tenantB, customerId, hash],
      );
      return hash;
    }
    const ticketsOf = async (tenantId: number): Promise<Array<{ used_at: Date | null }>> =>
      r.inspect.query('SELECT used_at FROM customer_tickets WHERE tenant_id = $1', [tenantId]);

    it("replace supersedes tenant A's tickets and cannot write one for B's customer", async () => {
      const { idA, idB } = await pair('ticket@example.com');
      const hashB = await ticketB(idB);
      const ticket = { type: 'password_reset' as const, ttlSeconds: 60 };
      await expect(
        r.inA((db) =>
          tickets.replace(db, { ...ticket, customerId: idB, tokenHash: randomBytes(32) }),
        ),
      ).rejects.toThrow(/foreign key/);
      await r.inA((db) =>
        tickets.replace(db, { ...ticket, customerId: idA, tokenHash: randomBytes(32) }),
      );
      await r.inA((db) =>
        tickets.replace(db, { ...ticket, customerId: idA, tokenHash: randomBytes(32) }),
      );
      expect(await ticketsOf(r.tenantA)).toHaveLength(1);
      expect(await ticketsOf(r.tenantB)).toHaveLength(1);
      expect(await tickets.peek(r.a(), 'password_reset', hashB)).toBeUndefined();
    });

    it("peek and redeem use tenant A's tickets only", async () => {
      const { idA, idB } = await pair('redeem@example.com');
      const hashB = await ticketB(idB);
      expect(await tickets.peek(r.a(), 'password_reset', hashB)).toBeUndefined();
      expect(await tickets.redeem(r.a(), 'password_reset', hashB)).toBeUndefined();
      expect((await ticketsOf(r.tenantB)).every((t) => t.used_at === null)).toBe(true);

      const hashA = randomBytes(32);
      await r.inA((db) =>
        tickets.replace(db, {
          customerId: idA,
          type: 'email_verification',
          tokenHash: hashA,
          ttlSeconds: 60,
        }),
      );
      expect(await tickets.peek(r.a(), 'email_verification', hashA)).toBe(idA);
      expect(await tickets.redeem(r.a(), 'email_verification', hashA)).toBe(idA);
      expect(await tickets.redeem(r.a(), 'email_verification', hashA)).toBeUndefined();
    });
  });
});

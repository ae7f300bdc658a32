import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, newTenant, tokenFor } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const PASSWORD = 'correct horse battery staple';
/** The attacker run: 5 apps of one tenant, each with 16 logins in flight at all times. */
const FLOOD_APPS = 5;
const FLOOD_PER_APP = 16;
/** Tenant B: 40 correct logins, 4 at a time, while the flood goes on. */
const B_LOGINS = 40;
const B_CONCURRENCY = 4;

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/**
 * The argon2 lanes are shared by tenant first, then by app: however many apps one tenant
 * floods with, another tenant's correct logins go through, with real argon2 and real
 * concurrency over HTTP.
 */
describe('argon2 lanes shared by tenant, then by app', () => {
  let t: TestApp;
  let floodTokens: string[];
  let victimToken: string;
  const victimEmail = `b-${randomBytes(4).toString('hex')}@example.com`;

  beforeAll(async () => {
    t = await createTestApp({
      API_RATE_LIMIT_PER_TOKEN: '1000000',
      LOGIN_FAILURES_PER_EMAIL: '1000000',
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const a = await newTenant(t);
    floodTokens = [];
    for (let i = 0; i < FLOOD_APPS; i++) {
      floodTokens.push(await tokenFor(t, await newApp(t, a.id, ['customer:auth'])));
    }
    const b = await newTenant(t);
    victimToken = await tokenFor(t, await newApp(t, b.id, ['customer:auth']));
    const registered = await t.http
      .post('/v1/customers/register')
      .set('authorization', `Bearer ${victimToken}`)
      .send({ name: 'Bea', email: victimEmail, password: PASSWORD });
    if (registered.status !== 201) throw new Error(`registration: ${registered.status}`);
  });
  afterAll(() => t.close());

  const login = (token: string, email: string, password: string) =>
    t.http
      .post('/v1/customers/login')
      .set('authorization', `Bearer ${token}`)
      .send({ email, password })
      .then((r) => r);

  /** B_LOGINS correct logins of tenant B, B_CONCURRENCY at a time: statuses and latencies. */
  async function victimLogins(): Promise<{ statuses: number[]; latencies: number[] }> {
    const statuses: number[] = [];
    const latencies: number[] = [];
    const victim = async () => {
      for (let i = 0; i < B_LOGINS / B_CONCURRENCY; i++) {
        const start = performance.now();
        const res = await login(victimToken, victimEmail, PASSWORD);
        if (res.status === 200) latencies.push(performance.now() - start);
        statuses.push(res.status);
      }
    };
    await Promise.all(Array.from({ length: B_CONCURRENCY }, victim));
    return { statuses, latencies: latencies.sort((x, y) => x - y) };
  }

  function summary({ statuses, latencies }: { statuses: number[]; latencies: number[] }): string {
    const counts = Object.fromEntries(
      [...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length]),
    );
    if (latencies.length === 0) return JSON.stringify(counts);
    const ms = (q: number) => quantile(latencies, q).toFixed(0);
    return `${JSON.stringify(counts)}, 200s p50 ${ms(0.5)} ms p99 ${ms(0.99)} ms`;
  }

  // About a hundred argon2 verifications, two at a time (the lane): seconds of CPU, which a
  // busy 2-core machine stretched past the default 20 s (a timeout, not an assertion, below).
  it("another tenant's flood from 5 apps × 16 logins refuses none of tenant B's correct logins", async () => {
    const alone = await victimLogins();
    const stop = new AbortController();
    let floodRefused!: () => void;
    const refused = new Promise<void>((resolve) => (floodRefused = resolve));
    const floodStatuses = new Map<number, number>();
    let refusal: { body: unknown; headers: Record<string, string> } | undefined;
    const flooder = async (token: string) => {
      while (!stop.signal.aborted) {
        const email = `a-${randomBytes(6).toString('hex')}@example.com`;
        const res = await login(token, email, 'not the password');
        floodStatuses.set(res.status, (floodStatuses.get(res.status) ?? 0) + 1);
        if (res.status === 429) {
          refusal ??= res;
          floodRefused();
        }
      }
    };
    const flood = floodTokens.flatMap((token) =>
      Array.from({ length: FLOOD_PER_APP }, () => flooder(token)),
    );
    // The flood fills whatever the lane lets it hold: beyond that it is refused. It stops
    // whatever happens, or the app could not close after a failure here.
    let during: Awaited<ReturnType<typeof victimLogins>>;
    try {
      await refused;
      during = await victimLogins();
    } finally {
      stop.abort();
      await Promise.all(flood);
    }

    console.info(
      `tenant B logins alone: ${summary(alone)}; during the flood: ${summary(during)}; ` +
        `tenant A: ${JSON.stringify(Object.fromEntries(floodStatuses))}`,
    );
    expect(alone.statuses).toEqual(Array(B_LOGINS).fill(200));
    expect(during.statuses).toEqual(Array(B_LOGINS).fill(200));
    // The flooding tenant gets only wrong-password answers and, beyond its share, 429s.
    expect([...floodStatuses.keys()].sort((x, y) => x - y)).toEqual([401, 429]);
    expect(refusal?.body).toMatchObject({ error: 'rate_limited' });
    expect(refusal?.headers['retry-after']).toBe('1');
    expect(refusal?.headers['x-request-id']).toBeTruthy();
  }, 60_000);
});

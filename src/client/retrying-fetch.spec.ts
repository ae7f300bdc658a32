import { describe, expect, it } from 'vitest';
import { retryAfterSeconds, retryingFetch } from './retrying-fetch.js';

/** A server that answers from a script, recording what it was sent. */
function scripted(...answers: Array<[number, Record<string, string>?]>) {
  const seen: Array<{ method: string; body: string }> = [];
  const waits: number[] = [];
  const next = async (request: Request) => {
    seen.push({ method: request.method, body: await request.text() });
    const [status, headers] = answers[Math.min(seen.length - 1, answers.length - 1)];
    return new Response(`{"status":${status}}`, { status, headers });
  };
  const sleep = (ms: number) => {
    waits.push(ms);
    return Promise.resolve();
  };
  return { next, sleep, seen, waits };
}

const post = (headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/v1/orders', { method: 'POST', body: '{"a":1}', headers });

describe('retryingFetch', () => {
  it('waits out Retry-After on 429, then sends the same body again', async () => {
    const s = scripted([429, { 'retry-after': '3' }], [201]);
    const response = await retryingFetch(s.next, { sleep: s.sleep })(post());
    expect(response.status).toBe(201);
    expect(s.waits).toEqual([3000]);
    expect(s.seen).toEqual([
      { method: 'POST', body: '{"a":1}' },
      { method: 'POST', body: '{"a":1}' },
    ]);
  });

  it('gives up after maxRetries and returns the last answer', async () => {
    const s = scripted([429, { 'retry-after': '1' }]);
    const response = await retryingFetch(s.next, { sleep: s.sleep, maxRetries: 2 })(post());
    expect(response.status).toBe(429);
    expect(s.seen).toHaveLength(3);
    expect(s.waits).toEqual([1000, 1000]);
  });

  it('does not wait longer than maxWaitSeconds: the 429 is returned', async () => {
    const s = scripted([429, { 'retry-after': '120' }], [201]);
    const response = await retryingFetch(s.next, { sleep: s.sleep })(post());
    expect(response.status).toBe(429);
    expect(s.waits).toEqual([]);
  });

  it('503 repeats only what is safe to repeat: GET and writes with an Idempotency-Key', async () => {
    const unsafe = scripted([503, { 'retry-after': '5' }], [201]);
    expect((await retryingFetch(unsafe.next, { sleep: unsafe.sleep })(post())).status).toBe(503);
    expect(unsafe.seen).toHaveLength(1);

    const keyed = scripted([503, { 'retry-after': '5' }], [201]);
    const withKey = post({ 'idempotency-key': 'k-1' });
    expect((await retryingFetch(keyed.next, { sleep: keyed.sleep })(withKey)).status).toBe(201);
    expect(keyed.waits).toEqual([5000]);

    const read = scripted([503, { 'retry-after': '5' }], [200]);
    const get = new Request('http://127.0.0.1/v1/orders');
    expect((await retryingFetch(read.next, { sleep: read.sleep })(get)).status).toBe(200);
  });

  it('no Retry-After, or another status: answered as is', async () => {
    const answers: Array<[number, Record<string, string>?]> = [
      [503],
      [500, { 'retry-after': '1' }],
      [404],
    ];
    for (const answer of answers) {
      const s = scripted(answer, [200]);
      const response = await retryingFetch(s.next, { sleep: s.sleep })(post());
      expect(response.status).toBe(answer[0]);
      expect(s.seen).toHaveLength(1);
    }
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const at = (value: string) =>
      retryAfterSeconds(new Response(null, { status: 429, headers: { 'retry-after': value } }));
    expect(at('7')).toBe(7);
    expect(at(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThanOrEqual(9);
    expect(at('soon')).toBeUndefined();
  });
});

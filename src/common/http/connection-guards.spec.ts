import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { closingGate } from './connection-guards.js';

describe('closingGate', () => {
  it('lets requests through until shutdown starts, then answers 503 unavailable with Connection: close', async () => {
    const gate = closingGate();
    const headers: Record<string, string> = {};
    const reply = {
      header: (name: string, value: string) => {
        headers[name] = value;
        return reply;
      },
    } as unknown as FastifyReply;
    const request = {} as FastifyRequest;
    expect(gate.check(request, reply)).toBeUndefined();
    await gate.start();
    let refusal: unknown;
    try {
      gate.check(request, reply);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      code: 'unavailable',
      options: { headers: { 'retry-after': '1' } },
    });
    expect(headers).toEqual({ connection: 'close' });
  });
});

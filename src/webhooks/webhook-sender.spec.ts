import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook } from './webhook-sender.js';

/** Loopback only: the policy allows it here, as the service's own tests configure it. */
const limits = { allowHttp: true, allowPrivateNetworks: true, timeoutMs: 2000 };

/**
 * A raw HTTP/1.1 receiver on 127.0.0.1 that counts connections and requests. `onRequest`
 * says, per request (numbered from 0 across connections), whether to answer 204 or to reset
 * the connection without an answer.
 */
async function rawReceiver(onRequest: (n: number) => 'answer' | 'reset') {
  const state = { connections: 0, requests: 0 };
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    state.connections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const headerEnd = buffered.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const length = Number(
          /content-length: (\d+)/i.exec(buffered.subarray(0, headerEnd).toString())?.[1] ?? 0,
        );
        if (buffered.length < headerEnd + 4 + length) return;
        buffered = buffered.subarray(headerEnd + 4 + length);
        if (onRequest(state.requests++) === 'reset') {
          socket.resetAndDestroy();
          return;
        }
        socket.write(
          'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\n',
        );
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Kept-alive connections would hold the server open.
        for (const socket of open) socket.destroy();
      }),
  };
}

describe('webhook POSTs reuse connections', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('five deliveries to one host, one after another: one connection', async () => {
    const receiver = await rawReceiver(() => 'answer');
    close = receiver.close;
    for (let i = 0; i < 5; i++) {
      expect(await postWebhook(receiver.url, {}, '{"n":1}', limits)).toEqual({
        ok: true,
        statusCode: 204,
      });
    }
    expect(receiver.state).toEqual({ connections: 1, requests: 5 });
  });

  it('a kept-alive connection the receiver dropped is replaced once: the delivery succeeds', async () => {
    // The second request (on the first, reused connection) is reset without an answer.
    const receiver = await rawReceiver((n) => (n === 1 ? 'reset' : 'answer'));
    close = receiver.close;
    expect(await postWebhook(receiver.url, {}, '{}', limits)).toEqual({
      ok: true,
      statusCode: 204,
    });
    expect(await postWebhook(receiver.url, {}, '{}', limits)).toEqual({
      ok: true,
      statusCode: 204,
    });
    expect(receiver.state).toEqual({ connections: 2, requests: 3 });
  });

  it('a new connection reset before an answer is a failed attempt, not retried', async () => {
    const receiver = await rawReceiver(() => 'reset');
    close = receiver.close;
    expect(await postWebhook(receiver.url, {}, '{}', limits)).toEqual({
      ok: false,
      statusCode: null,
      error: 'connection failed (ECONNRESET)',
    });
    expect(receiver.state).toEqual({ connections: 1, requests: 1 });
  });
});

import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawHttp } from './support/raw-http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { logCapture } from './support/log-capture.js';

/** Status line, headers (lower-cased names) and JSON body of a raw HTTP/1.1 answer. */
function parse(response: string): {
  status: number;
  headers: Record<string, string>;
  body: unknown;
} {
  const [head, body] = response.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.getHttpServer().address() as { port: number }).port;
}

/**
 * RFC 9112 3.2 and the methods Node hands past Fastify: answered in the error shape
 * (docs/BEHAVIOUR.md#errors).
 */
describe('requests Node would pass through or drop', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    port = await listen(t);
  });
  afterAll(() => t.close());

  it.each([
    ['two Host lines', 'Host: a.example\r\nHost: b.example\r\n'],
    ['the same Host twice', 'Host: a.example\r\nHost: a.example\r\n'],
    ['Host and HOST', 'Host: a.example\r\nHOST: a.example\r\n'],
    ['two Host lines, one empty', 'Host:\r\nHost: a.example\r\n'],
  ])('%s → 400 invalid_request with X-Request-Id', async (_name, hosts) => {
    const answer = parse(
      await rawHttp(port, `GET /health/live HTTP/1.1\r\n${hosts}Connection: close\r\n\r\n`),
    );
    expect(answer.status).toBe(400);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      error: 'invalid_request',
      error_description: 'A request must have exactly one Host header',
    });
  });

  it('two Host lines in HTTP/1.0 → 400 too; one Host line passes', async () => {
    const twice = await rawHttp(port, 'GET /health/live HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n');
    expect(parse(twice).status).toBe(400);
    const single = await rawHttp(
      port,
      'GET /health/live HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(parse(single)).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('CONNECT → 404 not_found in the error shape with X-Request-Id, then closed', async () => {
    const response = await rawHttp(
      port,
      'CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nX-Request-Id: tunnel-1\r\n\r\n',
    );
    const answer = parse(response);
    expect(answer.status).toBe(404);
    expect(answer.headers['x-request-id']).toBe('tunnel-1');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toEqual({
      error: 'not_found',
      error_description: 'No route matches CONNECT: this server is not a proxy',
    });
    // The server still serves.
    expect((await t.http.get('/health/live')).status).toBe(200);
  });

  it('an Upgrade request is served as a plain request (no upgrade happens)', async () => {
    const response = await rawHttp(
      port,
      'GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n',
    );
    expect(parse(response)).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('a CONNECT client that resets at once does not take the process down', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n');
    socket.resetAndDestroy();
    await once(socket, 'close');
    expect((await t.http.get('/health/live')).status).toBe(200);
  });
});

describe('a cap on open connections (HTTP_MAX_CONNECTIONS)', () => {
  const CAP = 20;
  let t: TestApp;
  let port: number;
  let server: Server;
  const { destination, lines: logs } = logCapture();

  beforeAll(async () => {
    t = await createTestApp(
      { HTTP_MAX_CONNECTIONS: String(CAP), LOG_LEVEL: 'warn' },
      [],
      destination,
    );
    port = await listen(t);
    server = t.app.getHttpServer();
  });
  afterAll(() => t.close());

  /** A client that sent its headers and a first byte of a 100-byte body, then stalls. */
  async function slowBody(): Promise<Socket> {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    socket.write(
      'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    return socket;
  }

  it('beyond the cap new connections are closed unanswered; once they go, it serves again', async () => {
    expect(server.maxConnections).toBe(CAP);
    // Every accepted connection, seen from the server's side.
    const accepted: Socket[] = [];
    let allAccepted!: () => void;
    const full = new Promise<void>((resolve) => (allAccepted = resolve));
    const onConnection = (socket: Socket) => {
      accepted.push(socket);
      if (accepted.length === CAP) allAccepted();
    };
    server.on('connection', onConnection);
    const stalled = await Promise.all(Array.from({ length: CAP }, slowBody));
    await full;

    // More, well-behaved: connected by the kernel, then closed by the server unanswered.
    const refused: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dropped = once(server, 'drop');
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await dropped;
      await once(socket, 'close');
      refused.push(received);
    }
    expect(refused).toEqual(['', '', '']);
    expect(accepted).toHaveLength(CAP);
    expect(logs.join('')).toContain('connections refused');

    // The stalled clients go away; the server keeps serving.
    // Not events.once: the server's side sees a parse error (body cut short) before closing.
    const closed = accepted.map(
      (socket) => new Promise((resolve) => socket.once('close', resolve)),
    );
    stalled.forEach((socket) => socket.destroy());
    await Promise.all(closed);
    server.off('connection', onConnection);
    const res = await t.http.get('/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

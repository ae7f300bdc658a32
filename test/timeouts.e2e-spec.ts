import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/test-app.js';

/** docs/BEHAVIOUR.md#requests-and-responses: slow or stuck clients time out. */
describe('slow clients', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ REQUEST_TIMEOUT_MS: '1000' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  it('a client that never finishes its headers is cut off (408, then closed)', async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const started = performance.now();
    socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n'); // no blank line: never ends
    await once(socket, 'close');
    const elapsed = performance.now() - started;
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('a normal request is unaffected', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(res.status).toBe(200);
  });
});

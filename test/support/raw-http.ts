import { once } from 'node:events';
import { connect } from 'node:net';

/**
 * Sends `request` as raw bytes to 127.0.0.1:`port` and resolves with everything received
 * until the server closes: for what no well-behaved HTTP client sends.
 */
export async function rawHttp(port: number, request: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.write(request);
  await once(socket, 'close');
  return received;
}

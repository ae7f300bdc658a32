import { Writable } from 'node:stream';

/** A log destination for createTestApp that keeps every line it receives, in `lines`. */
export function logCapture(): { destination: Writable; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { destination, lines };
}

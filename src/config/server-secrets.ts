import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AppConfig } from './app-config.js';

/** Key material the server needs; from configuration, else generated once into DATA_DIR. */
export class ServerSecrets {
  constructor(
    /** Key of the HMAC over client secrets. */
    readonly pepper: Buffer,
  ) {}
}

interface StoredSecrets {
  pepper: string;
}

export async function loadServerSecrets(config: AppConfig): Promise<ServerSecrets> {
  if (config.SECRET_PEPPER) return new ServerSecrets(Buffer.from(config.SECRET_PEPPER, 'base64'));
  const stored = await loadOrCreate(join(resolve(config.DATA_DIR), 'secrets.json'));
  return new ServerSecrets(Buffer.from(stored.pepper, 'base64'));
}

async function loadOrCreate(file: string): Promise<StoredSecrets> {
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  await mkdir(resolve(file, '..'), { recursive: true });
  const created: StoredSecrets = { pepper: randomBytes(32).toString('base64') };
  try {
    await writeFile(file, JSON.stringify(created, null, 2), { mode: 0o600, flag: 'wx' });
    return created;
  } catch (e) {
    // Another process (the CLI, a second instance) wrote it first: theirs wins.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  }
}

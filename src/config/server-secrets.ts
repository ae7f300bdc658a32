import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AppConfig } from './app-config.js';

/** Key material the server needs; from configuration, else generated once into DATA_DIR. */
export class ServerSecrets {
  constructor(
    /** Key of the HMAC over client secrets. */
    readonly pepper: Buffer,
    /** PEM of the EC P-256 private key signing access tokens. */
    readonly signingKeyPem: string,
    /** PEM public keys of earlier signing keys, still accepted (rotation). */
    readonly extraPublicKeyPems: string[],
  ) {}
}

interface StoredSecrets {
  pepper: string;
  signingKey: string;
}

export async function loadServerSecrets(config: AppConfig): Promise<ServerSecrets> {
  const stored =
    config.SECRET_PEPPER && config.JWT_SIGNING_KEY
      ? undefined
      : await loadOrCreate(join(resolve(config.DATA_DIR), 'secrets.json'));
  const pepper = config.SECRET_PEPPER ?? stored!.pepper;
  const signingKey = config.JWT_SIGNING_KEY ?? stored!.signingKey;
  const extra =
    config.JWT_PUBLISHED_KEYS?.match(
      /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g,
    ) ?? [];
  return new ServerSecrets(Buffer.from(pepper, 'base64'), signingKey, extra);
}

function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

async function loadOrCreate(file: string): Promise<StoredSecrets> {
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  await mkdir(resolve(file, '..'), { recursive: true });
  const created: StoredSecrets = {
    pepper: randomBytes(32).toString('base64'),
    signingKey: generateSigningKey(),
  };
  try {
    await writeFile(file, JSON.stringify(created, null, 2), { mode: 0o600, flag: 'wx' });
    return created;
  } catch (e) {
    // Another process (the CLI, a second instance) wrote it first: theirs wins.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return JSON.parse(await readFile(file, 'utf8')) as StoredSecrets;
  }
}

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from './test-app.js';

/**
 * Two instances of one deployment on one fresh database: the pepper and signing key shared, as
 * every instance of a deployment shares them. Close `b` before `a` (a owns the database).
 */
export async function twoInstances(
  env: Record<string, string> = {},
): Promise<{ a: TestApp; b: TestApp }> {
  const shared = { ...deploymentSecrets(), ...env };
  const a = await createTestApp(shared);
  const b = await createTestApp(shared, [], undefined, a.databaseUrl);
  return { a, b };
}

/** The pepper and signing key every instance of one deployment shares. */
export function deploymentSecrets(): Record<string, string> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    SECRET_PEPPER: randomBytes(32).toString('base64'),
    JWT_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

import { describe, expect, it } from 'vitest';
import { ConfigError, loadAppConfig } from './app-config.js';

describe('loadAppConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadAppConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      DATA_DIR: '.data',
      SEED_DEMO: true,
      LOG_LEVEL: 'info',
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.embeddedDatabase).toBe(true);
  });

  it('treats empty strings as unset, so .env.example works verbatim', () => {
    const config = loadAppConfig({ DATABASE_URL: '', PUBLIC_URL: '', PORT: '' });
    expect(config.embeddedDatabase).toBe(true);
    expect(config.PORT).toBe(3000);
  });

  it('converts types and derives PUBLIC_URL from PORT', () => {
    const config = loadAppConfig({ PORT: '8080', SEED_DEMO: 'false', DB_POOL_SIZE: '4' });
    expect(config).toMatchObject({ PORT: 8080, SEED_DEMO: false, DB_POOL_SIZE: 4 });
    expect(config.publicUrl).toBe('http://localhost:8080');
  });

  it('reads DATABASE_READ_URLS as a comma-separated list; blank is unset', () => {
    expect(
      loadAppConfig({ DATABASE_READ_URLS: ' postgres://r1/x ,postgres://r2/x,' })
        .DATABASE_READ_URLS,
    ).toEqual(['postgres://r1/x', 'postgres://r2/x']);
    expect(loadAppConfig({ DATABASE_READ_URLS: ' ' }).DATABASE_READ_URLS).toBeUndefined();
    expect(loadAppConfig({}).READ_REPLICA_MAX_LAG_MS).toBe(2000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '12abc'],
    ['PORT', '70000'],
    ['SEED_DEMO', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_READ_URLS', 'postgres://replica/x, mysql://y'],
    ['READ_REPLICA_MAX_LAG_MS', '-1'],
    ['PUBLIC_URL', 'not a url'],
    ['SECRET_PEPPER', 'short'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '10.0.0.1, not-an-address'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '0.0.0.0/0'],
    ['TRUST_PROXY', '::/0'],
    ['TRUST_PROXY', '10.0.0.1,0.0.0.0/1'],
    ['METRICS_TOKEN', 'short'],
  ])('rejects %s=%s with a message naming the variable, never its value', (name, value) => {
    const message = configErrorOf({ [name]: value });
    expect(message).toMatch(new RegExp(`^  ${name}: `, 'm'));
    expect(message).not.toContain(value);
  });

  it('never prints a secret value, however malformed', () => {
    const secrets = {
      JWT_SIGNING_KEY: 'super-secret-private-key-material',
      SECRET_PEPPER: 'hunter2-pepper',
      DATABASE_URL: 'mysql://admin:db-password-123@db/x',
    };
    const message = configErrorOf(secrets);
    for (const [name, value] of Object.entries(secrets)) {
      expect(message).toContain(name);
      expect(message).not.toContain(value);
    }
    expect(message).not.toContain('db-password-123');
  });

  it('listens on localhost unless HOST says otherwise', () => {
    expect(loadAppConfig({}).host).toBe('localhost');
    expect(loadAppConfig({ DATABASE_URL: 'postgres://db/x' }).host).toBe('localhost');
    expect(loadAppConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it.each([
    [undefined, false],
    ['false', false],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.1,::1, fd00::/8', ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8']],
  ])('reads TRUST_PROXY=%j as a hop count or a list of proxies', (value, expected) => {
    const env = value === undefined ? {} : { TRUST_PROXY: value };
    expect(loadAppConfig(env).TRUST_PROXY).toEqual(expected);
  });

  it('requires SECRET_PEPPER with DATABASE_URL in production', () => {
    expect(() =>
      loadAppConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' }),
    ).toThrow(/SECRET_PEPPER/);
    // Zero-config holds in production on the embedded database.
    expect(loadAppConfig({ NODE_ENV: 'production' }).embeddedDatabase).toBe(true);
  });
});

/** The ConfigError's message for `env`; fails the test when the environment is accepted. */
function configErrorOf(env: Record<string, string>): string {
  try {
    loadAppConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('configuration was accepted');
}

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

  it.each([
    ['PORT', 'abc'],
    ['PORT', '12abc'],
    ['PORT', '70000'],
    ['SEED_DEMO', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://x'],
    ['PUBLIC_URL', 'not a url'],
    ['SECRET_PEPPER', 'short'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadAppConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadAppConfig({ [name]: value })).toThrow(new RegExp(`${name}=`));
  });

  it('requires SECRET_PEPPER with DATABASE_URL in production', () => {
    expect(() =>
      loadAppConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' }),
    ).toThrow(/SECRET_PEPPER/);
    // Zero-config holds in production on the embedded database.
    expect(loadAppConfig({ NODE_ENV: 'production' }).embeddedDatabase).toBe(true);
  });
});

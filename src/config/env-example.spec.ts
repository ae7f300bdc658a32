import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AppConfig, loadAppConfig } from './app-config.js';

/** `.env.example` is the list of every variable with its default: checked against AppConfig. */
describe('.env.example', () => {
  const example = parseEnv(readFileSync('.env.example', 'utf8'));

  it('lists every variable the service reads, and no other', () => {
    expect(Object.keys(example).sort()).toEqual(Object.keys(new AppConfig()).sort());
  });

  it('gives each its default: copied to .env as it is, it changes nothing', () => {
    expect(loadAppConfig(example)).toEqual(loadAppConfig({}));
  });
});

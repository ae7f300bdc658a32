import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    // One embedded PostgreSQL for the run, a migrated template, a database per spec file.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Two files at a time (Vitest's default is one fewer than the cores: 1 on this 2-core
    // machine); the specs wait mostly on PostgreSQL and child processes, not on the CPU.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});

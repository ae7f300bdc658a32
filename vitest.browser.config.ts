import { defineConfig } from 'vitest/config';

/** `npm run test:browser`: /docs in a real headless Chromium (Debian's package). */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser-spec.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

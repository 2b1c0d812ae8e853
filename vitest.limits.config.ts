import { defineConfig } from 'vitest/config';

/**
 * `npm run test:limits`: the tests that push hundreds of MiB through the built binary to prove the
 * input limits (a 600 MiB line, a 48 MiB body answered 413). CI runs them once, on one Node line;
 * `npm test` leaves them out.
 */
export default defineConfig({
  test: {
    include: ['test/limits/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    globalSetup: ['test/global-setup.ts'],
  },
});

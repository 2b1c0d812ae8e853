import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // One test file per core. vitest's default is one fewer than the cores, which on a 2-core CI
    // runner means one file at a time; most of the suite waits on child processes and servers, so
    // two at a time take ~92 s instead of ~145 s there (measured), with every test passing.
    maxWorkers: availableParallelism(),
    globalSetup: ['test/global-setup.ts'],
  },
});

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files that must have a process of their own. The MCP SDK imports full zod, whose import sets
 * zod's English messages for every schema in the process (esign's own use zod/mini's, which the
 * tests assert).
 */
const OWN_PROCESS = [
  'test/unit/mcp-tools.test.ts',
  'test/unit/template-fields.test.ts',
  // It mocks the step every command shares (src/command-run.ts) to catch what commander hands over.
  'test/unit/plain-line.test.ts',
  'test/e2e/mcp.test.ts',
  'test/e2e/mcp-clients.test.ts',
  'test/e2e/mcp-confirm.test.ts',
  'test/e2e/mcp-install.test.ts',
  'test/e2e/mcp-short-token.test.ts',
  'test/e2e/mcpb.test.ts',
];

export default defineConfig({
  // The tests load a dependency the way the bundle does (scripts/bundle-options.mjs): the ES-module
  // build named by `module` before `main`, for a package without an `exports` map (jsonc-parser).
  ssr: { resolve: { mainFields: ['module', 'main'] } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // One test file per core. vitest's default is one fewer than the cores, which on a 2-core CI
    // runner means one file at a time; most of the suite waits on child processes and servers.
    maxWorkers: availableParallelism(),
    globalSetup: ['test/global-setup.ts'],
    projects: [
      // A worker process runs file after file: the sources, vitest and the helpers are imported once a
      // worker instead of once a file. Each file still gets fresh module state where it matters
      // (OWN_PROCESS).
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          // The input limits (hundreds of MiB through the binary) run apart: `npm run test:limits`.
          exclude: [...OWN_PROCESS, 'test/limits/**'],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});

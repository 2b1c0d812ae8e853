// The layers of src/, checked by `npm run check` (dependency-cruiser): what may import what. The
// engine works on values and never reaches for a command, a terminal or a CI runner; only the
// transport knows undici; the sandbox speaks HTTP and imports only the wire schemas and text
// helpers; and no file imports itself back through another.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment:
        'A file imports itself back through another: the two belong in one, or one decides what both need. A lazy import (import()) does not count: a command declaration loads its command that way only when it runs, and the command takes its types and constants from its declaration.',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
    },
    {
      name: 'batch-engine-stays-an-engine',
      severity: 'error',
      comment:
        'src/batch/ takes values and ports and returns values and events: the command (src/commands/) wires it to the terminal (io/), the interactive flow (envelope/) and GitHub Actions (ci/).',
      from: { path: '^src/batch/' },
      to: { path: '^src/(ci|io|commands|envelope)/|^src/(cli|main)[.]ts$' },
    },
    {
      name: 'commands-are-called-not-imported',
      severity: 'error',
      comment: 'A command calls the engine, not the other way round.',
      from: { path: '^src/', pathNot: '^src/(commands/|cli[.]ts$|command-run[.]ts$|main[.]ts$|quick[.]ts$)' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'only-the-transport-knows-undici',
      severity: 'error',
      comment: 'Ask the transport (src/transport/http-client.ts) instead.',
      from: { path: '^src/', pathNot: '^src/transport/' },
      to: { path: 'node_modules/undici/' },
    },
    {
      name: 'the-sandbox-speaks-http',
      severity: 'error',
      comment:
        'The sandbox imports only the wire schemas (src/api/schemas.ts) and pure text helpers (src/text/); the command passes in anything else.',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/(sandbox/|api/schemas[.]ts$|text/)' },
    },
    {
      name: 'the-sandbox-uses-node-and-zod',
      severity: 'error',
      comment: "The sandbox uses Node's built-ins and zod only.",
      from: { path: '^src/sandbox/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer'], pathNot: 'node_modules/zod/' },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};

// Builds one ESM bundle in dist/: the entry holds commander and the command table; every command
// (and each heavy library it needs) lands in a chunk that is loaded only when that command runs.
import { existsSync, readFileSync, rmSync } from 'node:fs';

// `npm install -g .` runs `prepare` without the dev dependencies: then a bundle built by `npm ci`
// is used as it is.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  if (existsSync(new URL('../dist/main.js', import.meta.url))) process.exit(0);
  console.error('esbuild is not installed: run `npm ci` first, then build (or install) again.');
  process.exit(1);
}
const { build } = esbuild;

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

// The MCP server (`esign mcp`) is a bundle of its own, with its own copy of zod: in the split build
// the SDK's zod would share zod's core with esign's, and that shared chunk, loaded by every command,
// would grow by a fifth. The main build leaves the module out and imports the bundle instead.
const MCP_SERVER = /\/mcp\/server\.js$/;
const mcpServerApart = {
  name: 'mcp-server-apart',
  setup(plugin) {
    plugin.onResolve({ filter: MCP_SERVER }, () => ({ path: '../mcp-server.js', external: true }));
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: false,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // Some dependencies are CommonJS and call require() for Node built-ins.
  banner: {
    js: "import{createRequire as __esignRequire}from'node:module';const require=__esignRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: { 'mcp-server': 'src/mcp/server.ts' },
  outdir: 'dist',
});

await build({
  ...common,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { __ESIGN_VERSION__: JSON.stringify(pkg.version) },
  plugins: [mcpServerApart],
});

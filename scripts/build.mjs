// Builds one ESM bundle in dist/: the entry holds commander and the command table; every command
// (and each heavy library it needs) lands in a chunk that is loaded only when that command runs.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: false,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  define: { __ESIGN_VERSION__: JSON.stringify(pkg.version) },
  // Some dependencies are CommonJS and call require() for Node built-ins.
  banner: {
    js: "import{createRequire as __esignRequire}from'node:module';const require=__esignRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

#!/usr/bin/env node
// Tiny shim. `esign --version` is answered here, before any module is loaded: scripts call it often,
// and it is measured against `node -e 0`. Everything else: enable Node's on-disk compile cache where
// the runtime has it (Node >= 22.1), then load the bundle.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(
    `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`,
  );
} else {
  module.enableCompileCache?.();
  const { main } = await import('../dist/main.js');
  await main();
}

#!/usr/bin/env node
// Tiny shim: use Node's on-disk compile cache where the runtime has it (Node >= 22.1), then load the bundle.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/main.js');
await main();

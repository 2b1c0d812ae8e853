#!/usr/bin/env node
// Tiny shim. `esign --version` is answered here, before any module is loaded: scripts call it often,
// and it is measured against `node -e 0`. Everything else: enable Node's on-disk compile cache where
// the runtime has it (Node >= 22.1), ask for V8's baseline WebAssembly compiler once a request is
// about to be sent (below), then load the bundle.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(
    `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`,
  );
} else {
  module.enableCompileCache?.();
  useBaselineWasmCompilerForRequests();
  const { main } = await import('../dist/main.js');
  await main();
}

/**
 * The HTTP client parses answers with a WebAssembly build of llhttp. After a response, V8 keeps
 * optimising that module in the background and the process cannot exit until it is done: measured
 * at about twice the wall time of a whole `envelope create`. A CLI makes a few requests and leaves,
 * so the baseline compiler (Liftoff) is all it needs.
 *
 * The flag is set when the transport announces its first request (src/transport/http-client.ts,
 * FIRST_REQUEST_CHANNEL), not here and now: changing a V8 flag makes every Node built-in loaded
 * after it miss Node's code cache and compile from source (crypto, net, tls, http… for a create;
 * tens of milliseconds), and by the first request they are all loaded, `performance` included.
 */
function useBaselineWasmCompilerForRequests() {
  const channels = process.getBuiltinModule('node:diagnostics_channel');
  const onFirstRequest = () => {
    channels.unsubscribe('esign:transport:first-request', onFirstRequest);
    process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  };
  channels.subscribe('esign:transport:first-request', onFirstRequest);
}

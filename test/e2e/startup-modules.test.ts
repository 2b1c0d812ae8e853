// What `esign --help` and a create load, watched from inside the built binary
// (test/helpers/process-watch.ts): start-up is a feature, and a Node built-in or a library loaded for
// every command is paid by every command.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_ARGS, LIVE_TOKEN } from '../helpers/create-command.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { bundleProcessWatch, type ProcessWatch, runWatched } from '../helpers/spawn.js';

let hook: string;

beforeAll(async () => {
  hook = await bundleProcessWatch();
});

const server = useScriptedServer();

async function watched(args: string[], env: Record<string, string> = {}): Promise<ProcessWatch> {
  const result = await runWatched(hook, args, { env });
  expect(result.code).toBe(0);
  return result.watch;
}

const builtinsOf = async (args: string[]) => (await watched(args)).builtins;

/** A name chalk's own module defines, wherever the bundle puts it. */
const CHALK_TEXT = 'chalkStderr';

/** The files of the bundle the process loaded that hold `text`. */
const filesHolding = (watch: ProcessWatch, text: string) =>
  watch.modules
    .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
    .filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes(text));

const chalkFiles = (watch: ProcessWatch) => filesHolding(watch, CHALK_TEXT);

describe('start-up', () => {
  it('--help loads no node:crypto (it was loaded for every command, for one randomUUID), no child_process', async () => {
    const builtins = await builtinsOf(['--help']);
    expect(builtins).toContain('NativeModule fs');
    expect(builtins.filter((name) => /^NativeModule (internal\/)?crypto\b/.test(name))).toEqual([]);
    // commander's node:child_process is for executable subcommands, which esign has none of.
    expect(builtins).not.toContain('NativeModule child_process');
    // The home folder is read from $HOME (bin/esign.js) or when a command needs it (src/main.ts).
    // (Node 24's module-hooks worker, which the watch starts, loads node:os itself: `--version`,
    // answered before anything is loaded, is the baseline.)
    const baseline = await builtinsOf(['--version']);
    if (!baseline.includes('NativeModule os')) expect(builtins).not.toContain('NativeModule os');
  });

  it("--help makes no process.stderr, a usage error no process.stdout (making one, for a pipe, loads Node's streams and net: ~3.5 ms)", async () => {
    expect((await watched(['--help'])).streamsMade).toEqual(['stdout']);
    const failed = await runWatched(hook, ['envelope', 'list', '--bogus']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("Unknown option '--bogus'");
    expect(failed.watch.streamsMade).toEqual(['stderr']);
  });

  it('a create with -q or --json loads no chalk (it draws nothing), nor http2; the human one loads chalk', async () => {
    const env = { ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: LIVE_TOKEN };
    for (const flag of ['-q', '--json']) {
      server.script(ok());
      const watch = await watched([...CREATE_ARGS, flag], env);
      expect(watch.modules.some((url) => url.endsWith('/dist/main.js'))).toBe(true); // the watch saw the bundle
      // Each file loaded on its own carries the chunks it imports (scripts/build.mjs): main.js, the
      // command, the HTTP client and the sender, where it read 31 files.
      expect(watch.modules.filter((url) => url.includes('/dist/')).length, flag).toBeLessThanOrEqual(4);
      expect(chalkFiles(watch), flag).toEqual([]);
      expect(watch.builtins, flag).not.toContain('NativeModule tty');
      // undici's HTTP/2 client is never used (nor tls, for an http:// server).
      expect(watch.builtins, flag).not.toContain('NativeModule http2');
      expect(watch.builtins, flag).not.toContain('NativeModule tls');
      // bin/esign.js serves every require: no file makes its own (each did, through node:module).
      expect(filesHolding(watch, 'createRequire'), flag).toEqual([]);
      // undici's node:http, node:assert and its fetch body code are patched out, and the request id
      // needs no node:crypto (scripts/start-up-patches.mjs, src/transport/request-id.ts).
      // The exchange's duration is timed with process.hrtime, not performance.now() (perf_hooks).
      for (const name of ['http', 'assert', 'crypto', 'fs/promises', 'perf_hooks'])
        expect(watch.builtins, flag).not.toContain(`NativeModule ${name}`);
      expect(filesHolding(watch, 'webidl'), flag).toEqual([]);
    }
    server.script(ok());
    // At least one file: a chunk that two lazily loaded files import is carried by both, and runs
    // once (scripts/build.mjs).
    expect(chalkFiles(await watched(CREATE_ARGS, env)).length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(3);
  });
});

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

/** A name commander's own module defines. */
const COMMANDER_TEXT = 'allowExcessArguments';

/** The files of the bundle the process loaded. */
const bundleFiles = (watch: ProcessWatch) =>
  watch.modules.filter((url) => url.startsWith('file:') && url.includes('/dist/'));

/** The files of the bundle the process loaded that hold `text`. */
const filesHolding = (watch: ProcessWatch, text: string) =>
  bundleFiles(watch).filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes(text));

const chalkFiles = (watch: ProcessWatch) => filesHolding(watch, CHALK_TEXT);

/** A name ora's own module defines. */
const ORA_TEXT = 'isSpinning';

/** A name undici's HTTP parser (llhttp) defines. */
const UNDICI_TEXT = 'wasm_on_headers_complete';

describe('start-up', () => {
  it('--help loads no node:crypto (it was loaded for every command, for one randomUUID)', async () => {
    const builtins = await builtinsOf(['--help']);
    expect(builtins).toContain('NativeModule fs');
    expect(builtins.filter((name) => /^NativeModule (internal\/)?crypto\b/.test(name))).toEqual([]);
  });

  it('help and a Tab come from the command table: no module of the bundle, so neither commander nor a command', async () => {
    const bundleModules = (watch: ProcessWatch) => watch.modules.filter((url) => url.includes('/dist/'));
    for (const args of [
      ['--help'],
      [],
      ['envelope', 'create', '--help'],
      ['help', 'envelope', 'batch'],
      ['help', 'exit-codes'],
      ['__complete', '--', 'envelope', 'cr'],
      ['__complete', '--', 'envelope', 'batch', 'x.csv', '--format', ''],
    ]) {
      expect(bundleModules(await watched(args)), args.join(' ')).toEqual([]);
    }
    // A Tab that needs the config (the profiles) is left to the full entry, which reads it.
    const profiles = await watched(['__complete', '--', '--profile', '']);
    expect(bundleModules(profiles).some((url) => url.endsWith('/dist/main.js'))).toBe(true);
    // The bundle's parser lives apart from the table: commander is in a chunk of its own.
    const quick = readFileSync(fileURLToPath(new URL('../../dist/quick.cjs', import.meta.url)), 'utf8');
    expect(quick).not.toContain(COMMANDER_TEXT);
  });

  it('a create loads chalk only to colour: not with -q or --json, nor in a pipe; with FORCE_COLOR it does', async () => {
    const env = { ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: LIVE_TOKEN };
    for (const flag of ['-q', '--json']) {
      server.script(ok());
      const watch = await watched([...CREATE_ARGS, flag], env);
      expect(watch.modules.some((url) => url.endsWith('/dist/main.js'))).toBe(true); // the watch saw the bundle
      expect(chalkFiles(watch), flag).toEqual([]);
      expect(watch.builtins, flag).not.toContain('NativeModule tty');
      // The exchange's duration is timed with process.hrtime, not performance.now() (perf_hooks).
      for (const name of ['fs/promises', 'perf_hooks'])
        expect(watch.builtins, flag).not.toContain(`NativeModule ${name}`);
    }
    // The view for a person loads chalk only where stdout shows colour: not in a pipe.
    server.script(ok());
    const piped = await watched(CREATE_ARGS, env);
    expect(chalkFiles(piped)).toEqual([]);
    // The spinner's module comes with the command (it is small); ora only where a spinner is drawn.
    expect(filesHolding(piped, ORA_TEXT)).toEqual([]);
    // Help is rendered only where it is asked for (src/commands/help-page.ts).
    expect(filesHolding(piped, 'function helpPage')).toEqual([]);
    expect(piped.builtins).not.toContain('NativeModule internal/process/report');
    server.script(ok());
    expect(chalkFiles(await watched(CREATE_ARGS, { ...env, FORCE_COLOR: '1' })).length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(4);
  });

  it('a create loads few files: what every start shares is one (scripts/bundle-options.mjs: commonFirst)', async () => {
    const env = { ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: LIVE_TOKEN };
    server.script(ok());
    const create = await watched([...CREATE_ARGS, '--json'], env);
    expect(filesHolding(create, UNDICI_TEXT)).toHaveLength(1); // the watch sees the HTTP client
    // Node's loader costs some 0.5M instructions a file. esbuild's splitting alone left the modules
    // a create shares with other commands in 44 files, many of a few hundred bytes: now 8 (main.js,
    // the shared file, esbuild's helpers, the create, its API client, its transport and undici, and
    // a check of the answer the batch shares).
    expect(bundleFiles(create).length, bundleFiles(create).join('\n')).toBeLessThanOrEqual(8);
    // What needs no network loads no HTTP client: a dry run, and a command that reads the config.
    for (const args of [
      [...CREATE_ARGS, '--dry-run'],
      ['config', 'list'],
    ]) {
      const quiet = await watched(args, env);
      expect(bundleFiles(quiet).length, args.join(' ')).toBeGreaterThan(1);
      expect(filesHolding(quiet, UNDICI_TEXT), args.join(' ')).toEqual([]);
    }
    expect(server.requests).toHaveLength(1);
  });

  it('a plain create is read from the command table: no commander, so no node:child_process', async () => {
    const env = { ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: LIVE_TOKEN };
    server.script(ok());
    const plain = await watched([...CREATE_ARGS, '--json'], env);
    expect(plain.modules.some((url) => url.endsWith('/dist/main.js'))).toBe(true);
    expect(filesHolding(plain, COMMANDER_TEXT)).toEqual([]);
    expect(plain.builtins).not.toContain('NativeModule child_process');
    // A line that is not plain (a flag before the command's words) is read by commander.
    server.script(ok());
    const typed = await watched(['--timeout', '10', ...CREATE_ARGS, '--json'], env);
    expect(filesHolding(typed, COMMANDER_TEXT).length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(2);
  });
});

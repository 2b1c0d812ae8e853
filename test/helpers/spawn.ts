// Runs the built binary as a user would: no TTY, a fresh config folder, nothing inherited that
// could change the outcome.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const BIN = resolve(import.meta.dirname, '../../bin/esign.js');

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Bundles `test/helpers/<name>.ts` into `<dir>/<name>.mjs`, for a child process to run or `--import`. */
export async function bundleHelper(name: string, dir: string): Promise<string> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [resolve(import.meta.dirname, `${name}.ts`)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  return outfile;
}

export function freshConfigDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'esign-e2e-')), 'config');
}

export interface RunOptions {
  /** Another copy of bin/esign.js (runBin only). */
  bin?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  timeoutMs?: number;
}

export function runBin(args: string[], options: RunOptions = {}): Promise<SpawnResult> {
  return runNode([options.bin ?? BIN, ...args], options);
}

/** `node <nodeArgs>` with only PATH, HOME, XDG_CACHE_HOME and `options.env` (a value of undefined leaves a variable out). */
function runNode(nodeArgs: string[], options: RunOptions): Promise<SpawnResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  // The test run's cache folder (test/global-setup.ts), not the user's: esign's compile cache goes there.
  if (process.env.XDG_CACHE_HOME) env.XDG_CACHE_HOME = process.env.XDG_CACHE_HOME;
  for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
  const child = spawn(process.execPath, nodeArgs, {
    env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.stdin ?? '');
  return gather(child, options.timeoutMs ?? 15_000).done;
}

/** test/helpers/process-watch.ts bundled in a folder of its own (runWatched's `hook`; reports go beside it). */
export function bundleProcessWatch(): Promise<string> {
  return bundleHelper('process-watch', mkdtempSync(join(tmpdir(), 'esign-watch-')));
}

/** What test/helpers/process-watch.ts reports of a run. */
export interface ProcessWatch {
  /** The ES modules the process loaded, the bundle's files among them (file: URLs). */
  modules: string[];
  /** process.moduleLoadList at exit. */
  builtins: string[];
  /** Whether a V8 flag was set while it ran. */
  flagsChanged: boolean;
}

/**
 * The built binary as runBin runs it (with a fresh config folder unless `options.env` names one),
 * watched from inside by test/helpers/process-watch.ts (`hook`: bundleProcessWatch()).
 * `--no-deprecation`: on Node 26 the watch's own module.register() prints a deprecation warning.
 */
export async function runWatched(
  hook: string,
  args: string[],
  options: RunOptions = {},
): Promise<SpawnResult & { watch: ProcessWatch }> {
  const report = join(dirname(hook), `watch-${Math.random().toString(36).slice(2)}.json`);
  const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ...options.env, ESIGN_WATCH_REPORT: report };
  const result = await runNode(
    ['--no-deprecation', '--import', pathToFileURL(hook).href, options.bin ?? BIN, ...args],
    {
      ...options,
      env,
    },
  );
  return { ...result, watch: JSON.parse(readFileSync(report, 'utf8')) as ProcessWatch };
}

/**
 * What a child process writes, gathered as it comes (`output`, to watch it while it runs), and how
 * it ended (`done`). With `timeoutMs`, a child still running then is killed.
 */
export function gather(
  child: ChildProcess & { stdout: Readable; stderr: Readable },
  timeoutMs?: number,
): { output: { stdout: string; stderr: string }; done: Promise<SpawnResult> } {
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const done = new Promise<SpawnResult>((resolvePromise, reject) => {
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, ...output });
    });
  });
  return { output, done };
}

// Runs the built binary as a user would: no TTY, a fresh config folder, nothing inherited that
// could change the outcome.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
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

export function runBin(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    stdin?: string;
    cwd?: string;
    timeoutMs?: number;
  } = {},
): Promise<SpawnResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
  const child = spawn(process.execPath, [BIN, ...args], {
    env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.stdin ?? '');
  return gather(child, options.timeoutMs ?? 15_000).done;
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

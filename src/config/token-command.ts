// A token command: a program that prints the token (a password manager, a keychain), named by
// `esign login --token-command` or ESIGN_TOKEN_COMMAND, as Claude Code's apiKeyHelper and the
// `--token-command` of other tools do. It is run when a command needs the token (and once more
// after a 401), through the system's shell; the first line of its standard output is the token,
// which is never stored or printed. Its output is never shown, not even when it fails: a helper
// that fails may still have printed a secret. A failure names the command and what happened.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Env } from '../context.js';
import { NotAuthenticatedError } from '../errors.js';
import { escapeControl } from '../text/terminal-text.js';
import { describeSource, type SettingSource, type TokenCommand, tokenProblem } from './settings.js';

/** More output than this is not a token command's: it is stopped and refused. */
const MAX_OUTPUT_BYTES = 64 * 1024;

export interface RunOptions {
  env: Env;
  platform: NodeJS.Platform;
  /** How long it may take (the request timeout): a command that waits longer is stopped. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** What a token command came to: its first line, or why there is no token. */
type Ran = { ok: true; output: string } | { ok: false; why: string; hint?: string };

/** The token the command prints. Throws a NotAuthenticatedError (exit 3) naming the command when there is none. */
export async function runTokenCommand(command: TokenCommand, options: RunOptions): Promise<string> {
  const ran = await run(command.command, options);
  const from = describeSource(command.source.replace(/^command /, '') as SettingSource);
  const named = `The token command \`${escapeControl(command.command)}\` (from ${from})`;
  if (!ran.ok) throw failed(`${named} ${ran.why}; there is no token.`, command, ran.hint);
  const [first = ''] = ran.output.split(/\r?\n/);
  const token = first.trim();
  if (token === '')
    throw failed(`${named} printed no token: the first line of its output is empty.`, command);
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw failed(
      `${named} printed something that is not a token: its first line holds white space or characters outside visible ASCII.`,
      command,
    );
  }
  const problem = tokenProblem(token);
  if (problem)
    throw failed(`${named} printed something that is not a token: its first line ${problem}.`, command);
  return token;
}

function failed(message: string, command: TokenCommand, hint?: string): NotAuthenticatedError {
  return new NotAuthenticatedError(message, {
    hint:
      hint ??
      `Run it yourself to see what it says (esign never shows its output, which holds the token): ${escapeControl(command.command)}`,
  });
}

/** The command run through the system's shell, its standard output gathered (bounded), in time. */
function run(command: string, options: RunOptions): Promise<Ran> {
  return new Promise((resolve) => {
    // Its own process group (not on Windows), so that a timeout stops the shell and what it started.
    const group = options.platform !== 'win32';
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, {
        shell: true,
        env: { ...options.env },
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: group,
        windowsHide: true,
      });
    } catch (error) {
      resolve({
        ok: false,
        why: `could not be started (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let outcome: Ran | undefined;
    const stop = (why: Ran) => {
      outcome ??= why;
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(
      () =>
        stop({
          ok: false,
          why: `did not finish within ${options.timeoutMs / 1000} s and was stopped`,
          hint: 'If it waits for you (a password, a fingerprint, an unlocked vault), unlock it and try again, or allow it more time with --timeout or ESIGN_TIMEOUT.',
        }),
      options.timeoutMs,
    );
    const onAbort = () => stop({ ok: false, why: 'was interrupted' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES)
        stop({ ok: false, why: `printed more than ${MAX_OUTPUT_BYTES / 1024} KiB, which is no token` });
      else chunks.push(chunk);
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      outcome ??= { ok: false, why: `could not be started (${error.code ?? error.message})` };
    });
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // The token is read: esign stops listening. A process the command left behind (a daemon, a
      // `sleep &`) may hold its standard output open for as long as it likes; neither the pipe nor
      // the child may keep esign running, and nothing waits on what the command started.
      child.stdout?.removeAllListeners('data');
      child.stdout?.destroy();
      child.unref();
      if (outcome) resolve(outcome);
      else if (code === 0) resolve({ ok: true, output: Buffer.concat(chunks).toString('utf8') });
      else resolve(exitedWith(code, signal, command, options));
    };
    child.once('close', finish);
    // The command exited. Its first line is usually read by then: it is taken at once. A daemon it
    // started (gpg-agent for `pass`) may keep its output open after it exits: what it printed is
    // read for a moment more (until the first line is whole), then taken as it is.
    child.once('exit', (code, signal) => {
      if (hasWholeLine(chunks)) finish(code, signal);
      else {
        child.stdout?.on('data', () => {
          if (hasWholeLine(chunks)) finish(code, signal);
        });
        setTimeout(() => finish(code, signal), AFTER_EXIT_MS).unref();
      }
    });
  });
}

function hasWholeLine(chunks: readonly Buffer[]): boolean {
  return chunks.some((chunk) => chunk.includes(0x0a));
}

/**
 * Why a command that exited without success gave no token. The shell's 127 (cmd's 9009) is a
 * program it could not find: that program is named when it is the command's own, not a bare status.
 */
function exitedWith(
  code: number | null,
  signal: NodeJS.Signals | null,
  command: string,
  options: RunOptions,
): Ran {
  if (code === null) return { ok: false, why: `was ended by ${signal}` };
  const notFound = options.platform === 'win32' ? code === 9009 : code === 127;
  if (!notFound) return { ok: false, why: `exited with status ${code}` };
  const program = firstWord(command);
  const missing = program !== undefined && !programExists(program, options);
  const why = missing
    ? `was not found: there is no program \`${escapeControl(program)}\` ${isPath(program, options.platform) ? 'at that path' : 'on PATH'}`
    : `could not be run: a program it runs was not found (the shell's status ${code}, "not found")`;
  return {
    ok: false,
    why,
    hint: missing
      ? `Install ${escapeControl(program)}, or put its folder on PATH, or give the command with the program's full path (esign login --token-command '<full path> …').`
      : `Run it yourself to see which program is missing (esign never shows its output, which holds the token): ${escapeControl(command)}`,
  };
}

/** The program a shell command line starts with, unquoted; undefined when it is not a plain word. */
function firstWord(command: string): string | undefined {
  const match = /^\s*(?:'([^']*)'|"([^"$`\\]*)"|([^\s'"$`;&|<>()\\=]+))(?=\s|$)/.exec(command);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** Whether the shell reads `program` as a path to a file (with a separator), not a name to look up on PATH. */
const isPath = (program: string, platform: NodeJS.Platform) =>
  program.includes('/') || (platform === 'win32' && program.includes('\\'));

/** Whether `program` names a file there (a path), or on the command's PATH (a bare name). */
function programExists(program: string, options: RunOptions): boolean {
  if (isPath(program, options.platform)) return existsSync(isAbsolute(program) ? program : resolve(program));
  const extensions = options.platform === 'win32' ? ['', '.exe', '.cmd', '.bat', '.com'] : [''];
  return (options.env.PATH ?? options.env.Path ?? '')
    .split(delimiter)
    .filter((folder) => folder !== '')
    .some((folder) => extensions.some((ext) => existsSync(join(folder, `${program}${ext}`))));
}

/** How long the output is still read after the command exited, when something else holds it open. */
const AFTER_EXIT_MS = 250;

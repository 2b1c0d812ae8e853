// Whether an MCP client's entry starts a server: the entry's command is started as a client starts
// it (its arguments, the environment with the entry's own variables over it, no shell), sent the
// protocol's `initialize`, and must answer it. Then its standard input is closed (a stdio server
// ends there) and it is stopped if it has not. What it printed on stderr is kept (its last lines)
// to say why it did not start.
import { spawn } from 'node:child_process';
import type { Env } from '../context.js';
import type { ServerLaunch } from './client-configs.js';

/** A server that answered, by the name and version it gave; or why there was none. */
export type EntryCheck = { ok: true; server: string } | { ok: false; why: string };

/** The protocol version the check asks for (every esign server answers it, and so do older ones). */
const PROTOCOL_VERSION = '2025-06-18';
/** How much of the server's stderr is kept for the reason. */
const STDERR_TAIL = 2048;
/** How long a server that answered may take to end after its input closed, before it is stopped. */
const EXIT_GRACE_MS = 3000;

export interface CheckOptions {
  readonly env: Env;
  /** How long the server may take to answer. */
  readonly timeoutMs: number;
  readonly version: string;
}

/**
 * What the server said of its failure on stderr, as one line: its error line (Node's `Error: Cannot
 * find module …`, esign's `error: …`, with the line after it), else its last lines.
 */
function whatItSaid(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const at = lines.findIndex((line) => /^([A-Za-z]*Error\b|error:)/.test(line));
  return (at === -1 ? lines.slice(-2) : lines.slice(at, at + 2)).join(' / ');
}

/** Starts `launch` as a client would and waits for its answer to `initialize`. */
export function checkEntry(launch: ServerLaunch, options: CheckOptions): Promise<EntryCheck> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(launch.command, [...launch.args], {
        env: { ...options.env, ...launch.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      resolve({
        ok: false,
        why: `could not be started (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      });
      return;
    }
    let stderr = '';
    let stdout = '';
    let outcome: EntryCheck | undefined;
    const finish = (result: EntryCheck) => {
      if (outcome) return;
      outcome = result;
      clearTimeout(timer);
      resolve(result);
      // Its input closed, a stdio server ends; one that does not is stopped.
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null) {
        const stop = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
        stop.unref();
        child.once('exit', () => clearTimeout(stop));
      }
    };
    const timer = setTimeout(() => {
      finish({ ok: false, why: `did not answer \`initialize\` within ${options.timeoutMs / 1000} s` });
      child.kill('SIGTERM');
    }, options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'ENOENT'
          ? `could not be started: ${launch.command} was not found (ENOENT)`
          : `could not be started (${error.code ?? error.message})`;
      finish({ ok: false, why });
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      for (let end = stdout.indexOf('\n'); end !== -1 && !outcome; end = stdout.indexOf('\n')) {
        const line = stdout.slice(0, end);
        stdout = stdout.slice(end + 1);
        const answer = answerOf(line);
        if (answer) finish(answer);
      }
    });
    child.on('exit', (code, signal) => {
      const how = signal ? `was stopped by ${signal}` : `exited with status ${code}`;
      const said = whatItSaid(stderr);
      finish({ ok: false, why: `${how} before it answered \`initialize\`${said ? `: ${said}` : ''}` });
    });
    // A server that ended at once closes its input: the write fails with EPIPE, and its exit says why.
    child.stdin?.on('error', () => {});
    child.stdin?.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'esign mcp install', version: options.version },
        },
      })}\n`,
    );
  });
}

/** The check's outcome from one line of the server's stdout, when it is the answer to `initialize`. */
function answerOf(line: string): EntryCheck | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined; // not the protocol (npx's notes, say): the answer is yet to come
  }
  if (typeof message !== 'object' || message === null || (message as { id?: unknown }).id !== 1)
    return undefined;
  const { result, error } = message as {
    result?: { serverInfo?: { name?: unknown; version?: unknown } };
    error?: { message?: unknown };
  };
  if (result && typeof result.serverInfo?.name === 'string') {
    const version = typeof result.serverInfo.version === 'string' ? ` ${result.serverInfo.version}` : '';
    return { ok: true, server: `${result.serverInfo.name}${version}` };
  }
  const said = typeof error?.message === 'string' ? `: ${error.message}` : '';
  return { ok: false, why: `answered \`initialize\` with an error${said}` };
}

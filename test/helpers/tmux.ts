// A real terminal for tests: a detached tmux session running one shell command, read by polling.
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { shellQuote } from '../../src/text/shell.js';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/**
 * Sockets of one test run share a prefix named after the run's own temporary folder (the global
 * setup points TMPDIR at it), so a run's teardown stops its own servers and never another run's.
 */
export function tmuxSocketPrefix(runFolder: string): string {
  return `esign-${basename(runFolder)}-`;
}

/**
 * A tmux server of this test process's own: on the shared default socket, one test closing its last
 * session can stop the server while another test (or another run on the machine) is starting one.
 */
const SOCKET = ['-L', `${tmuxSocketPrefix(tmpdir())}${process.pid}`];
let serverStarted = false;

/**
 * Starts this process's server once and keeps it up between tests: by default tmux stops a server
 * whose last session closed, and a test starting the next session that instant gets "server exited
 * unexpectedly". The global teardown (test/global-setup.ts) stops it.
 */
function startServer(): void {
  if (serverStarted) return;
  serverStarted = true;
  execFileSync('tmux', [...SOCKET, 'start-server', ';', 'set-option', '-g', 'exit-empty', 'off']);
}

export interface Terminal {
  /** Every screen seen so far, oldest first. */
  readonly screens: string[];
  /** Polls the screen until it matches; returns it (throws with the last screen after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Types text literally, then Enter. */
  typeLine(text: string): void;
  /** Types text literally, without Enter. */
  type(text: string): void;
  /** Presses keys by tmux name: 'Tab', 'C-c', 'C-d', 'Enter'. */
  press(...keys: string[]): void;
  close(): void;
}

export function openTerminal(
  name: string,
  command: string,
  options: {
    env?: Record<string, string>;
    cwd?: string;
    columns?: number;
    rows?: number;
    /** Screens with their colours and attributes, as escape sequences (tmux capture-pane -e). */
    escapes?: boolean;
  } = {},
): Terminal {
  const session = `${name}-${process.pid}`;
  startServer();
  const tmux = (...args: string[]) => execFileSync('tmux', [...SOCKET, ...args], { encoding: 'utf8' });
  // `sleep` keeps the pane (and what it shows) after the command ends; close() ends it.
  // Set in the command itself: a tmux server that is already running keeps its own environment.
  const exports = Object.entries(options.env ?? {})
    .map(([key, value]) => `export ${key}=${shellQuote(value)}; `)
    .join('');
  const cd = options.cwd ? `cd ${shellQuote(options.cwd)} && ` : '';
  const size = ['-x', String(options.columns ?? 120), '-y', String(options.rows ?? 20)];
  tmux('new-session', '-d', '-s', session, ...size, `${exports}${cd}${command}; sleep 60`);
  const screens: string[] = [];
  return {
    screens,
    async waitFor(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = tmux('capture-pane', '-p', ...(options.escapes ? ['-e'] : []), '-t', session);
        screens.push(screen);
        if (pattern.test(screen)) return screen;
        if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    typeLine(text) {
      tmux('send-keys', '-t', session, '-l', text);
      tmux('send-keys', '-t', session, 'Enter');
    },
    type(text) {
      tmux('send-keys', '-t', session, '-l', text);
    },
    press(...keys) {
      tmux('send-keys', '-t', session, ...keys);
    },
    close() {
      spawnSync('tmux', [...SOCKET, 'kill-session', '-t', session]);
    },
  };
}

// A test context: buffered stdout/stderr with a settable TTY, scripted stdin, a temporary config
// folder and an environment of the test's choosing. `runCli` runs the real entry point in-process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { storedPreference } from '../../src/config/preferences.js';
import { type Context, cachedStdin, type Env, redact } from '../../src/context.js';
import { decideTerminal } from '../../src/io/terminal.js';
import { run } from '../../src/main.js';

export class BufferStream {
  text = '';
  constructor(
    readonly isTTY = false,
    readonly columns = 80,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
  // What ora calls on a terminal stream.
  cursorTo(): boolean {
    return true;
  }
  clearLine(): boolean {
    return true;
  }
  moveCursor(): boolean {
    return true;
  }
  on(): this {
    return this;
  }
  once(): this {
    return this;
  }
  removeListener(): this {
    return this;
  }
}

export interface TestContextOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** What the hidden prompt "types". */
  promptAnswer?: string;
  configDir?: string;
  now?: Date;
  cwd?: string;
  signal?: AbortSignal;
  /** The second Ctrl-C. */
  secondSignal?: AbortSignal;
}

export interface TestContext extends Context {
  readonly out: BufferStream;
  readonly err: BufferStream;
  readonly configDir: string;
  readonly prompts: string[];
}

export function createTestContext(options: TestContextOptions = {}): TestContext {
  const configDir = options.configDir ?? join(mkdtempSync(join(tmpdir(), 'esign-test-')), 'config');
  const out = new BufferStream(options.stdoutTTY ?? false);
  const err = new BufferStream(options.stderrTTY ?? false);
  const prompts: string[] = [];
  const stdinText = options.stdin ?? '';
  const env: Env = { ESIGN_CONFIG_DIR: configDir, ...options.env };
  const secrets = new Set<string>();
  return {
    out,
    err,
    configDir,
    prompts,
    // No redaction here: tests must see any leak that the code itself would make.
    stdout: out,
    stderr: err,
    spinnerStream: err as unknown as NodeJS.WritableStream,
    terminal: decideTerminal({ stdout: out, stderr: err }, env, process.platform, () =>
      storedPreference(configDir, 'accessible'),
    ),
    stdin: {
      isTTY: options.stdinTTY ?? false,
      ...cachedStdin(() => Readable.from([Buffer.from(stdinText)]), {
        isTTY: options.stdinTTY ?? false,
        stderr: err,
        signal: options.signal,
      }),
      stream: () => Readable.from([Buffer.from(stdinText)]),
    },
    env,
    cwd: options.cwd ?? process.cwd(),
    version: '0.0.0-test',
    platform: process.platform,
    homedir: join(configDir, 'home'),
    now: () => options.now ?? new Date(),
    promptSecret: async (question) => {
      prompts.push(question);
      return options.promptAnswer ?? '';
    },
    signal: options.signal ?? new AbortController().signal,
    secondInterrupt: { signal: options.secondSignal ?? new AbortController().signal, claim: () => {} },
    // Files are redacted by the code itself (through ctx.redact), so that is real here.
    addSecret: (value) => {
      if (value) secrets.add(value);
    },
    redact: (text) => redact(text, secrets),
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ctx: TestContext;
}

/** Runs `esign <argv>` in-process against a test context. */
export async function runCli(
  argv: string[],
  options: TestContextOptions | TestContext = {},
): Promise<CliResult> {
  const ctx = 'out' in options ? options : createTestContext(options);
  const code = await run(argv, ctx);
  return { code, stdout: ctx.out.text, stderr: ctx.err.text, ctx };
}

/** Asserts that a secret appears nowhere in what the CLI printed. */
export function assertNoSecret(result: { stdout: string; stderr: string }, secret: string): void {
  if (result.stdout.includes(secret) || result.stderr.includes(secret)) {
    throw new Error('the token leaked into the output');
  }
}

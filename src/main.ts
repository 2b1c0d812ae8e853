// run(argv, context) -> exit code. main() builds the context from the process, wires signals and is
// the only place that ends the process.
import { homedir } from 'node:os';
import type { ReadStream } from 'node:tty';
import type { CommanderError } from 'commander';
import { type Context, cachedReadAll, redactingStream } from './context.js';
import { CliError, ExitCode, InterruptedError, UsageError } from './errors.js';

declare const __ESIGN_VERSION__: string;
export const VERSION = typeof __ESIGN_VERSION__ === 'string' ? __ESIGN_VERSION__ : '0.0.0-dev';

export async function run(argv: readonly string[], ctx: Context): Promise<number> {
  // Start-up is a feature: `esign --version` answers before the command table is even built.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    ctx.stdout.write(`${ctx.version}\n`);
    return ExitCode.ok;
  }
  const flagsEnd = argv.indexOf('--');
  const flags = flagsEnd === -1 ? argv : argv.slice(0, flagsEnd);
  const json = flags.includes('--json');
  const verbose = flags.includes('--verbose');
  let exitCode: number = ExitCode.ok;
  const { buildProgram } = await import('./cli.js');
  const program = buildProgram(ctx, (code) => {
    exitCode = code;
  });
  if (argv.length === 0) {
    ctx.stdout.write(program.helpInformation());
    return ExitCode.ok;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(fromCommander(error), ctx, { json, verbose });
  }
}

function fromCommander(error: unknown): unknown {
  const commanderError = error as CommanderError;
  if (typeof commanderError?.code !== 'string' || !commanderError.code.startsWith('commander.')) return error;
  if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(commanderError.code)) {
    return commanderError.exitCode === 0
      ? null
      : new UsageError('A subcommand is needed (see the help above).');
  }
  const [message = '', ...rest] = commanderError.message.replace(/^error: /, '').split('\n');
  const suggestion = rest
    .join(' ')
    .trim()
    .replace(/^\((.*)\)$/, '$1');
  return new UsageError(`${message.charAt(0).toUpperCase()}${message.slice(1)}.`.replace(/\.\.$/, '.'), {
    hint: suggestion || 'Run the command with --help to see its flags and examples.',
    cause: error,
  });
}

/** Prints an error (plain, or one JSON object with --json) and returns its exit code. */
export function reportError(error: unknown, ctx: Context, mode: { json: boolean; verbose: boolean }): number {
  if (error === null) return ExitCode.ok;
  const known = error instanceof CliError;
  const exitCode = known ? error.exitCode : ExitCode.internal;
  const message = known
    ? error.message
    : `Unexpected internal error: ${(error as Error)?.message ?? String(error)}`;
  const hint = known ? error.hint : 'Run again with --verbose for details, and report it if it persists.';
  if (mode.json) {
    const body: Record<string, unknown> = {
      code: known ? error.code : 'internal',
      message,
      status: known ? error.status : null,
    };
    if (hint) body.hint = hint;
    if (known && error.details.length > 0) body.details = error.details;
    ctx.stderr.write(`${JSON.stringify({ error: body })}\n`);
  } else {
    const lines = [`error: ${message}`];
    if (known) for (const detail of error.details) lines.push(`  ${detail}`);
    if (hint) lines.push(`hint: ${hint}`);
    ctx.stderr.write(`${lines.join('\n')}\n`);
  }
  if (mode.verbose && error instanceof Error) {
    let current: unknown = error;
    while (current instanceof Error) {
      ctx.stderr.write(`${current.stack ?? current.message}\n`);
      current = current.cause;
      if (current) ctx.stderr.write('caused by: ');
    }
  }
  return exitCode;
}

export function createProcessContext(signal: AbortSignal): Context {
  const secrets = new Set<string>();
  const stdin = process.stdin as ReadStream;
  return {
    stdout: redactingStream(process.stdout as unknown as Context['stdout'], secrets),
    stderr: redactingStream(process.stderr as unknown as Context['stderr'], secrets),
    spinnerStream: process.stderr,
    stdin: {
      isTTY: Boolean(stdin.isTTY),
      readAll: cachedReadAll(() => process.stdin),
      stream: () => process.stdin,
    },
    env: process.env,
    cwd: process.cwd(),
    version: VERSION,
    platform: process.platform,
    homedir: homedir(),
    now: () => new Date(),
    promptSecret: async (question) => {
      const { promptSecret } = await import('./io/prompt.js');
      return promptSecret(stdin, process.stderr, question);
    },
    signal,
    addSecret: (value) => {
      if (value) secrets.add(value);
    },
  };
}

export async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (name: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.interrupted);
    controller.abort(new InterruptedError(`Interrupted (${name}).`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed pipe (`esign … | head -1`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? ExitCode.ok);
  });
  const ctx = createProcessContext(controller.signal);
  const code = await run(process.argv.slice(2), ctx);
  process.exitCode = code;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

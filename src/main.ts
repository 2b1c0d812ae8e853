// run(argv, context) -> exit code. main() builds the context from the process, wires signals and is
// the only place that ends the process.
import { homedir } from 'node:os';
import type { ReadStream } from 'node:tty';
import type { Command as CommanderCommand, CommanderError } from 'commander';
import { type ProgramHooks, runDeclared } from './command-run.js';
import { GLOBAL_FLAGS } from './commands/global-flags.js';
import { helpAsked, showHelp } from './commands/help.js';
import { commandTree, ROOT } from './commands/table.js';
import { configDir } from './config/paths.js';
import { storedPreference } from './config/preferences.js';
import {
  type Context,
  cachedStdin,
  commandSafeStream,
  failureTracking,
  type OutputStream,
  redact,
  redactingStream,
} from './context.js';
import {
  CliError,
  ExitCode,
  errorBody,
  hintOf,
  InterruptedError,
  messageOf,
  OutputFailedError,
  UsageError,
} from './errors.js';
import { decideTerminal, drawableStream } from './io/terminal.js';
import { plainLine } from './plain-line.js';

declare const __ESIGN_VERSION__: string;
export const VERSION = typeof __ESIGN_VERSION__ === 'string' ? __ESIGN_VERSION__ : '0.0.0-dev';

export async function run(argv: readonly string[], ctx: Context): Promise<number> {
  // Start-up is a feature: `esign --version` answers before the command table is even built.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    ctx.stdout.write(`${ctx.version}\n`);
    return ExitCode.ok;
  }
  if (argv[0] === '__complete') return completeCommandLine(argv.slice(argv[1] === '--' ? 2 : 1), ctx);
  // Help is rendered from the command table: commander is loaded only to parse a command that runs.
  const asked = helpAsked(argv);
  if (asked) return (await import('./commands/help-page.js')).writeHelp(ctx, asked);
  if (argv[0] === 'help' && !argv.some((word) => word.startsWith('-'))) {
    try {
      return await showHelp(ctx, argv.slice(1));
    } catch (error) {
      return reportError(error, ctx, { json: false, verbose: false });
    }
  }
  // How errors are reported follows the options as parsed: from the command's checked options, or,
  // when parsing itself failed, from what the parser had read by then (never from scanning argv,
  // where `--set --json` gives --set the value "--json").
  const mode: { json: boolean; verbose: boolean; ciOutput?: string } = { json: false, verbose: false };
  let notes: HeldNotes | undefined;
  let exitCode: number = ExitCode.ok;
  const hooks: ProgramHooks = {
    onOptions: (options, command) => {
      mode.json = options.json === true;
      mode.verbose = options.verbose === true;
      mode.ciOutput = (options as { ciOutput?: string }).ciOutput;
      if (!mode.json || command.streamsStderr) return ctx;
      notes = new HeldNotes(ctx.stderr);
      // What goes to stderr is held, not shown: no spinner, no colour there.
      return {
        ...ctx,
        stderr: notes,
        terminal: decideTerminal(
          { stdout: ctx.stdout, stderr: notes },
          ctx.env,
          ctx.platform,
          () => ctx.terminal.accessible,
        ),
      };
    },
    onResult: (code) => {
      exitCode = code;
    },
  };
  try {
    // A plain line (the command's words, then its flags) is read from the table; commander reads
    // any other, and words what is wrong with it.
    const plain = plainLine(ROOT, GLOBAL_FLAGS, argv);
    if (plain) {
      mode.json = plain.raw.json === true;
      mode.verbose = plain.raw.verbose === true;
      await runDeclared(plain.path, plain.raw, plain.inherited, hooks);
    } else {
      const { buildProgram } = await import('./cli.js');
      const program = buildProgram(ctx, hooks, argv);
      watchModeFlags(program, mode);
      await program.parseAsync([...argv], { from: 'user' });
    }
    if (notes && mode.verbose) notes.release();
    return exitCode;
  } catch (error) {
    return reportError(fromCommander(error), ctx, { ...mode, notes: notes?.lines() ?? [] });
  }
}

/**
 * The shells' completion scripts call `esign __complete -- <words>`: what may come next, from the
 * command tree, the profiles in the config and the template names in force. Never fails loudly: a
 * completion offers what it can. The config and the project file are read (completion-values.ts)
 * only when the word under the cursor is a value they give.
 */
async function completeCommandLine(words: string[], ctx: Context): Promise<number> {
  const { complete, formatCompletion } = await import('./commands/complete.js');
  const tree = commandTree();
  const line = words.length ? words : [''];
  let valuesAsked = false;
  let offered = complete(tree, line, () => {
    valuesAsked = true;
    return [];
  });
  if (valuesAsked) {
    const { valueLookup } = await import('./commands/completion-values.js');
    offered = complete(tree, line, valueLookup(ctx));
  }
  ctx.stdout.write(formatCompletion(offered));
  return ExitCode.ok;
}

/** Follows --json and --verbose as commander parses them, on whichever command declares them. */
function watchModeFlags(command: CommanderCommand, mode: { json: boolean; verbose: boolean }): void {
  command.on('option:json', () => {
    mode.json = true;
  });
  command.on('option:verbose', () => {
    mode.verbose = true;
  });
  for (const child of command.commands) watchModeFlags(child, mode);
}

/**
 * Under --json, stderr carries exactly one JSON object when a command fails. What the command writes
 * to stderr meanwhile (notes, warnings, hints) is held here: folded into the error object on failure,
 * dropped on success (shown with --verbose).
 */
class HeldNotes implements OutputStream {
  #text = '';
  readonly isTTY = false;
  constructor(readonly target: OutputStream) {}
  /** A drawing for the person (`--json --qr`) is no note: it goes to stderr itself. */
  drawing(): OutputStream {
    return this.target;
  }
  /** Workflow commands (`::add-mask::`) are for the CI runner, not notes: they go out at once. */
  command(lines: string): unknown {
    return this.target.command ? this.target.command(lines) : this.target.write(lines);
  }
  write(chunk: string): boolean {
    if (chunk.startsWith('::')) return this.command(chunk) !== false;
    this.#text += chunk;
    return true;
  }
  lines(): string[] {
    return this.#text
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => line !== '');
  }
  release(): void {
    if (this.#text) this.target.write(this.#text);
    this.#text = '';
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

type ReportMode = { json: boolean; verbose: boolean; notes?: string[]; ciOutput?: string | undefined };

/**
 * Prints an error (plain, or one JSON object with --json) and returns its exit code. The GitHub
 * Actions module is imported here, when there is an error to report, not by every start.
 */
export async function reportError(error: unknown, ctx: Context, mode: ReportMode): Promise<number> {
  if (error === null) return ExitCode.ok;
  const actions = await import('./ci/github-actions.js');
  writeAnnotation(error, ctx, mode.ciOutput, actions);
  const known = error instanceof CliError;
  if (mode.json) {
    // inertJsonLine: text in the error (a value the user typed, a file name) may hold `##[`, which
    // stderr's command guard would otherwise break the JSON to neutralise.
    ctx.stderr.write(`${actions.inertJsonLine(JSON.stringify({ error: jsonErrorBody(error, mode) }))}\n`);
  } else {
    const lines = [`error: ${messageOf(error)}`];
    if (known) for (const detail of error.details) lines.push(`  ${detail}`);
    const hint = hintOf(error);
    if (hint) lines.push(`hint: ${hint}`);
    ctx.stderr.write(`${lines.join('\n')}\n`);
    if (mode.verbose && tracedError(error)) ctx.stderr.write(`${traceOf(error)}\n`);
  }
  return known ? error.exitCode : ExitCode.internal;
}

/** The `error` object printed under --json. */
function jsonErrorBody(error: unknown, mode: ReportMode): Record<string, unknown> {
  const body = errorBody(error);
  if (mode.notes && mode.notes.length > 0) body.notes = mode.notes;
  if (mode.verbose && tracedError(error)) body.trace = traceOf(error);
  return body;
}

/** Details of an error (lines of an invalid input) shown in its annotation; the log has them all. */
const ANNOTATED_DETAILS = 5;

/**
 * In GitHub Actions, a failure is also an `::error` annotation on the run's page (on stderr, which
 * the runner reads for workflow commands as it does stdout), written before the normal message.
 */
function writeAnnotation(
  error: unknown,
  ctx: Context,
  ciOutput: string | undefined,
  { errorAnnotation, githubActionsEnabled, writeCommands }: typeof import('./ci/github-actions.js'),
): void {
  if (!githubActionsEnabled(ciOutput, ctx.env)) return;
  const known = error instanceof CliError;
  const hint = known && error.hint ? `\n${error.hint}` : '';
  // The first details too: which lines of an input are invalid, and why.
  const details = known ? error.details.slice(0, ANNOTATED_DETAILS) : [];
  const more = known && error.details.length > details.length ? ['…'] : [];
  const shown = [...details, ...more].map((detail) => `\n${detail}`).join('');
  // Redacted before it is escaped: `%` escaped as `%25` would hide a URL-encoded token.
  writeCommands(
    ctx.stderr,
    errorAnnotation(
      `esign: ${known ? error.code : 'internal'} (exit ${known ? error.exitCode : ExitCode.internal})`,
      ctx.redact(`${messageOf(error)}${shown}${hint}`),
    ),
  );
}

/**
 * Whether --verbose shows an error's stack: not for a problem with what the user gave or set up
 * (exit 2, or 3: no token, a token refused), where the message, its hint and the settings traced
 * above say everything and a stack only hides them; for anything else (a network or server
 * failure, an internal error), it does.
 */
function tracedError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  return !(
    error instanceof CliError &&
    (error.exitCode === ExitCode.usage || error.exitCode === ExitCode.unauthenticated)
  );
}

/** The stack of an error and of each cause, for --verbose. */
function traceOf(error: Error): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    parts.push(current.stack ?? current.message);
  }
  return parts.join('\ncaused by: ');
}

export function createProcessContext(
  signal: AbortSignal,
  secondInterrupt: Context['secondInterrupt'],
): Context {
  const secrets = new Set<string>();
  // Node makes process.stdin on first use, and making it opens fd 0 as a stream: --help and a create
  // never read it, so nothing here touches it until a command does (isatty asks the same question
  // of the file descriptor; node:tty is taken only then, as a quiet create never draws).
  const stdinIsTTY = () => process.getBuiltinModule('node:tty').isatty(0);
  // Redaction first, then the guard that keeps text from acting as a CI runner's workflow command
  // (on stdout only a line-leading `::`, which no JSON, URL or results line can hold).
  const redactedStderr = redactingStream(
    commandSafeStream(failureTracking(process.stderr), { anywhere: true }),
    secrets,
  );
  const stdout = redactingStream(
    commandSafeStream(failureTracking(process.stdout), { anywhere: false }),
    secrets,
  );
  const terminal = decideTerminal({ stdout, stderr: redactedStderr }, process.env, process.platform, () =>
    storedPreference(configDir(process.env, process.platform, homedir()), 'accessible'),
  );
  // Messages on a terminal that shows no Unicode (LANG=C) in ASCII; stdout is data, kept as it is.
  const stderr = drawableStream(redactedStderr, terminal);
  return {
    stdout,
    stderr,
    terminal,
    get spinnerStream() {
      return process.stderr;
    },
    stdin: {
      get isTTY() {
        return stdinIsTTY();
      },
      ...cachedStdin(() => process.stdin, {
        get isTTY() {
          return stdinIsTTY();
        },
        stderr,
        signal,
      }),
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
      return promptSecret(process.stdin as ReadStream, process.stderr, question);
    },
    signal,
    secondInterrupt,
    addSecret: (value) => {
      if (value) secrets.add(value);
    },
    redact: (text) => redact(text, secrets),
  };
}

export async function main(): Promise<void> {
  const controller = new AbortController();
  const second = new AbortController();
  let claimed = false;
  let interrupts = 0;
  const onSignal = (name: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) controller.abort(new InterruptedError(`Interrupted (${name}).`, {}, name));
    else if (interrupts === 2 && claimed)
      second.abort(new InterruptedError(`Interrupted again (${name}).`, {}, name));
    else process.exit(ExitCode.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const ctx = createProcessContext(controller.signal, {
    signal: second.signal,
    claim: () => {
      claimed = true;
    },
  });
  // A run that never settles (a promise nothing resolves) would let the process end with exit 0 and
  // nothing said: ending first is an internal error.
  let finished = false;
  process.once('exit', (exitCode) => {
    if (finished || exitCode !== 0) return;
    process.stderr.write(
      'error: esign ended before the command finished; this is a bug: please report it.\n',
    );
    process.exitCode = ExitCode.internal;
  });
  let code = await run(process.argv.slice(2), ctx);
  finished = true;
  // An output that could not be written is a failure, never exit 0: a closed pipe or a full disk
  // shows up as an error event after the write, so wait until stdout has taken everything.
  await ctx.stdout.flushed?.();
  const failure = ctx.stdout.failure?.();
  if (failure && code === ExitCode.ok) {
    code = await reportError(new OutputFailedError(failure), ctx, { json: false, verbose: false });
  }
  process.exitCode = code;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

// The parser, made from the command table (src/commands/table.ts) for the command the user typed:
// that command, and the commands above it, are built in commander with their flags and arguments;
// their other subcommands only by name, for the list of commands. One step serves every command:
// commander's result (flags merged with the global ones, positional arguments by their declared
// names) goes through the schema made from the command's declaration (src/options.ts), and only
// typed, checked options reach its `run`, which its module (imported then) holds.
import { Argument, Command, Help, Option } from 'commander';
import type { ArgDecl, CommandDecl, FlagDecl } from './command-types.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG } from './commands/global-flags.js';
import { ROOT } from './commands/table.js';
import type { Context } from './context.js';
import { childNamed, globalFlagsFor, keyOf, pathOf } from './declarations.js';
import { UsageError } from './errors.js';
import { describeIssue } from './text/issues.js';
import { durationText } from './text/units.js';
import { unknownCommandError, unknownOptionError } from './unknown-option.js';

/** What the entry point learns while a command line is parsed and run. */
export interface ProgramHooks {
  /** The command's options passed its schema: main learns --json/--verbose here, and hands back the context to run with. */
  onOptions(options: { json?: boolean; verbose?: boolean }, command: { streamsStderr: boolean }): Context;
  onResult(code: number): void;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Each commander command's declaration. */
const declarations = new WeakMap<Command, CommandDecl>();

/** Commander's Command, with the table's own messages for an unknown option or command. */
class EsignCommand extends Command {
  override createCommand(name?: string): EsignCommand {
    return new EsignCommand(name);
  }

  /** Commander's hook for an option this command lacks: said with the commands that have it. */
  unknownOption(flag: string): never {
    throw unknownOptionError(ROOT, GLOBAL_FLAGS, pathNames(this).slice(1), flag);
  }

  /** Commander's hook for a subcommand that does not exist: said as every level says it. */
  unknownCommand(): never {
    throw unknownCommandError(ROOT, pathNames(this).slice(1), String(this.args[0] ?? ''));
  }
}

function pathNames(command: Command): string[] {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names;
}

/** The words after a flag's help: its default and its variable, said one way everywhere. */
function flagNotes(flag: FlagDecl): string {
  const shown = flag.shownDefault ?? (flag.default === undefined ? undefined : defaultText(flag));
  const notes = [
    ...(shown === undefined ? [] : [`default: ${shown}`]),
    ...(flag.env ? [`env: ${flag.env}`] : []),
  ];
  return notes.length ? ` (${notes.join('; ')})` : '';
}

/** A default as a user would type it: 15m, not 900000. */
function defaultText(flag: FlagDecl): string {
  return flag.kind === 'duration' ? durationText(Number(flag.default)) : String(flag.default);
}

/** `--output <file>`, `-o, --output <file>`, `--token [value]`. */
function flagSpelling(flag: FlagDecl): string {
  const value =
    flag.kind === 'boolean'
      ? ''
      : flag.optionalValue
        ? ` [${flag.value ?? 'value'}]`
        : ` <${flag.value ?? 'value'}>`;
  return `${flag.short ? `${flag.short}, ` : ''}${flag.flag}${value}`;
}

function optionOf(flag: FlagDecl): Option {
  const option = new Option(flagSpelling(flag), `${flag.help}${flagNotes(flag)}`);
  if (flag.kind === 'list' || flag.kind === 'paths') option.argParser(collect);
  if (flag.kind === 'choice' && flag.choices) option.choices(flag.choices);
  if (flag.conflicts) option.conflicts(keyOf(flag.conflicts));
  if (flag.hidden) option.hideHelp();
  return option;
}

function argumentOf(arg: ArgDecl): Argument {
  const name = `${arg.name}${arg.variadic ? '...' : ''}`;
  return new Argument(arg.required ? `<${name}>` : `[${name}]`, arg.help);
}

function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') || line.startsWith(' ') || line === '' ? `  ${line}` : `  $ ${line}`)).join('\n')}\n`;
}

/** "--expires-in-days" for the option key "expiresInDays", "file" for a positional argument. */
function flagName(decl: CommandDecl, key: string): string {
  const flag = [...GLOBAL_FLAGS, ...(decl.flags ?? [])].find((f) => keyOf(f.flag) === key);
  if (flag) return flag.flag;
  // A positional argument by its name, as a word of the sentence ("shell must be one of …").
  return (decl.args ?? []).some((a) => a.name === key) ? key : `--${key}`;
}

function describeValue(value: unknown): string {
  return value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
}

/** The raw options commander parsed for `command`: its flags and the ones above, and its arguments by name. */
function rawOptions(command: Command, decl: CommandDecl): Record<string, unknown> {
  const raw: Record<string, unknown> = { ...command.optsWithGlobals() };
  (decl.args ?? []).forEach((argument, index) => {
    if (command.processedArgs[index] !== undefined) raw[argument.name] = command.processedArgs[index];
  });
  return raw;
}

/** Runs commander's result through the declaration's schema; a failure is a usage error naming the flag. */
async function parseOptions(command: Command, decl: CommandDecl): Promise<Record<string, unknown>> {
  const { schemaFor } = await import('./options.js');
  const raw = rawOptions(command, decl);
  // A parent's own flags reach its subcommands too (commander reads them after the subcommand).
  const inherited: FlagDecl[] = [];
  for (let at = command.parent; at; at = at.parent) inherited.push(...(declarations.get(at)?.flags ?? []));
  const parsed = schemaFor(decl, [...GLOBAL_FLAGS, ...inherited]).safeParse(raw);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const problems = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    return `${flagName(decl, key)} ${describeIssue(issue)}${describeValue(raw[key])}`;
  });
  throw new UsageError(`${problems[0]}.`, {
    details: problems.slice(1),
    hint: `Run \`${pathNames(command).join(' ')} --help\` to see its flags and examples.`,
  });
}

/** A command that only lists others (its own name, summary and aliases): never parsed into. */
function listed(parent: Command, decl: CommandDecl): void {
  parent
    .command(decl.name)
    .description(decl.summary)
    .aliases(decl.aliases ?? []);
}

/** One command of the typed path, with its flags, arguments, help and action. */
function built(command: Command, decl: CommandDecl, hooks: ProgramHooks): void {
  declarations.set(command, decl);
  command.description(decl.summary).aliases(decl.aliases ?? []);
  for (const flag of decl.flags ?? []) command.addOption(optionOf(flag));
  for (const arg of decl.args ?? []) command.addArgument(argumentOf(arg));
  command.addHelpText('after', examples(decl.examples));
  const { load } = decl;
  if (load) {
    command.action(async (...params: unknown[]) => {
      const at = params[params.length - 1] as Command;
      const module = await load();
      const options = await parseOptions(at, decl);
      const runCtx = hooks.onOptions(options, { streamsStderr: decl.streamsStderr === true });
      hooks.onResult(await module.run(options as never, runCtx));
    });
  } else if (decl.subcommands) {
    // Bare, a group shows its help on stdout (exit 0), as `esign` does.
    command
      .usage('<command> [flags]')
      .argument('[command]')
      .action(async (typed: string | undefined, _options: unknown, at: Command) => {
        if (typed === undefined) {
          at.outputHelp();
          return;
        }
        throw unknownCommandError(ROOT, pathNames(at).slice(1), typed);
      });
  }
}

/**
 * Commander, built for the command `argv` names (every command, given no argv: the tests' parser).
 */
export function buildProgram(ctx: Context, hooks: ProgramHooks, argv?: readonly string[]): Command {
  const path = argv === undefined ? undefined : pathOf(ROOT, GLOBAL_FLAGS, argv);
  const program = new EsignCommand('esign')
    .usage('<command> [flags]')
    .version(ctx.version, `${VERSION_FLAG.short}, ${VERSION_FLAG.flag}`, VERSION_FLAG.help)
    .helpOption(`${HELP_FLAG.short}, ${HELP_FLAG.flag}`, HELP_FLAG.help);
  for (const flag of GLOBAL_FLAGS) program.addOption(optionOf(flag));
  program
    .configureHelp({
      showGlobalOptions: true,
      // Only the global flags that mean something to the command (its unusedGlobals).
      visibleGlobalOptions(this: Help, command: Command) {
        const decl = declarations.get(command);
        const used = decl ? globalFlagsFor(decl, GLOBAL_FLAGS).map((f) => f.flag) : [];
        return Help.prototype.visibleGlobalOptions
          .call(this, command)
          .filter((o) => used.includes(o.long ?? ''));
      },
    })
    .showSuggestionAfterError(true)
    .helpCommand(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      outputError: () => {}, // main reports parse errors itself (plain or --json)
    });
  buildLevel(program, ROOT, path, 1, hooks);
  const helpCommand = program.commands.find((c) => c.name() === 'help');
  helpCommand?.action(async (topic: string[]) => {
    hooks.onResult(await showHelp(ctx, topic));
  });
  return program;
}

/** `decl` built as `command`; below it, the command the path goes on to (or all, without a path). */
function buildLevel(
  command: Command,
  decl: CommandDecl,
  path: readonly CommandDecl[] | undefined,
  depth: number,
  hooks: ProgramHooks,
): void {
  built(command, decl, hooks);
  for (const child of decl.subcommands ?? []) {
    if (path && child !== path[depth]) listed(command, child);
    else buildLevel(command.command(child.name), child, path, depth + 1, hooks);
  }
}

/** `esign help [command…|topic]`: a command's help or a topic, on stdout. */
async function showHelp(ctx: Context, words: readonly string[]): Promise<number> {
  const { HELP_TOPICS } = await import('./help-topics.js');
  const [first = ''] = words;
  const topic = words.length === 1 && Object.hasOwn(HELP_TOPICS, first) ? HELP_TOPICS[first] : undefined;
  if (topic) {
    ctx.stdout.write(topic);
    return 0;
  }
  let decl: CommandDecl = ROOT;
  for (const word of words) {
    const next = childNamed(decl, word);
    if (!next) {
      const { didYouMean } = await import('./text/suggest.js');
      const names = (decl.subcommands ?? []).map((c) => c.name);
      const known = [...names, ...(decl === ROOT ? Object.keys(HELP_TOPICS) : [])];
      throw new UsageError(
        `No help for '${words.join(' ')}': unknown command or topic '${word}'.${didYouMean(word, known)}`,
        {
          hint: `Commands: ${names.join(', ')}${decl === ROOT ? `; topics: ${Object.keys(HELP_TOPICS).join(', ')}` : ''}.`,
        },
      );
    }
    decl = next;
  }
  let command: Command = buildProgram(ctx, { onOptions: () => ctx, onResult: () => {} }, words);
  for (const word of words) {
    command = command.commands.find((c) => c.name() === word || c.aliases().includes(word)) ?? command;
  }
  command.outputHelp();
  return 0;
}

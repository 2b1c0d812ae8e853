// The parser, made from the command table (src/commands/table.ts) for the command the user typed:
// that command, and the commands above it, are built in commander with their flags and arguments;
// their other subcommands only by name, for the list of commands. One step serves every command:
// commander's result (flags merged with the global ones, positional arguments by their declared
// names) goes through the schema made from the command's declaration (src/options.ts), and only
// typed, checked options reach its `run`, which its module (imported then) holds.
import { Argument, Command, Option } from 'commander';
import type { ArgDecl, CommandDecl, FlagDecl } from './command-types.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG } from './commands/global-flags.js';
import { pageOf, showHelp, widthOf } from './commands/help.js';
import { ROOT } from './commands/table.js';
import type { Context } from './context.js';
import { keyOf, pathOf } from './declarations.js';
import { UsageError } from './errors.js';
import { flagSpelling, helpText } from './help/render.js';
import { describeIssue } from './text/issues.js';
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

/** The declarations of `command` and the commands above it, the root first. */
function declarationsAlong(command: Command): CommandDecl[] {
  const path: CommandDecl[] = [];
  for (let at: Command | null = command; at; at = at.parent) {
    const decl = declarations.get(at);
    if (decl) path.unshift(decl);
  }
  return path;
}

function pathNames(command: Command): string[] {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names;
}

function optionOf(flag: FlagDecl): Option {
  const option = new Option(flagSpelling(flag), flag.help);
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
    .version(ctx.version, `${VERSION_FLAG.short}, ${VERSION_FLAG.flag}`, VERSION_FLAG.help)
    .helpOption(`${HELP_FLAG.short}, ${HELP_FLAG.flag}`, HELP_FLAG.help);
  for (const flag of GLOBAL_FLAGS) program.addOption(optionOf(flag));
  program
    // The help is the table's own page (src/help/render.ts), as `esign help` shows it.
    .configureHelp({ formatHelp: (command) => helpText(pageOf(declarationsAlong(command)), widthOf(ctx)) })
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

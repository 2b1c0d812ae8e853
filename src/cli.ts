// The parser, made from the command table (src/commands/table.ts) for the command the user typed:
// that command, and the commands above it, are built in commander with their flags and arguments;
// their other subcommands only by name, for the list of commands. Commander's result (flags merged
// with the global ones, positional arguments by their declared names) goes to the step every command
// shares (src/command-run.ts). A plain line is read without commander (src/plain-line.ts).
import { Argument, Command, Option } from 'commander';
import { type ProgramHooks, runDeclared } from './command-run.js';
import type { ArgDecl, CommandDecl, FlagDecl } from './command-types.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG } from './commands/global-flags.js';
import { showHelp } from './commands/help.js';
import { pageOf, widthOf } from './commands/help-page.js';
import { ROOT } from './commands/table.js';
import type { Context } from './context.js';
import { keyOf, pathOf } from './declarations.js';
import { flagSpelling, helpText } from './help/render.js';
import { unknownCommandError, unknownOptionError } from './unknown-option.js';

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

/** The raw options commander parsed for `command`: its flags and the ones above, and its arguments by name. */
function rawOptions(command: Command, decl: CommandDecl): Record<string, unknown> {
  const raw: Record<string, unknown> = { ...command.optsWithGlobals() };
  (decl.args ?? []).forEach((argument, index) => {
    if (command.processedArgs[index] !== undefined) raw[argument.name] = command.processedArgs[index];
  });
  return raw;
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
      // A parent's own flags reach its subcommands too (commander reads them after the subcommand).
      const inherited = declarationsAlong(at)
        .slice(0, -1)
        .reverse()
        .flatMap((above) => above.flags ?? []);
      await runDeclared(declarationsAlong(at), rawOptions(at, decl), inherited, hooks);
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

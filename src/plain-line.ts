// A command line read from the command table alone, without commander, when it is plain: the
// command's words first, then only its flags (long, `--flag=value`, or a declared short form) and
// its positional words, each flag once (a repeatable one as often as it is given). Commander reads such a line the same way
// (test/unit/plain-line.test.ts compares the two on every command of the table), so a create or a
// batch is parsed without loading commander. Anything else is left to commander, which reads it and
// words its errors: a help or version flag, a flag before the command's words, one this command
// does not take or that is repeated, a value that starts with a dash, `--`, `-abc`, two flags that
// conflict, a choice not allowed, too few or too many words, a group's command given words.
import type { CommandDecl, FlagDecl } from './command-types.js';
import { childNamed, keyOf, takesValue } from './declarations.js';

/** The command a plain line runs, and its raw options as commander would have handed them over. */
export interface PlainLine {
  /** The commands the words name, the root first; the last runs. */
  readonly path: readonly CommandDecl[];
  /** Flags by their options key (strings, true, string lists), positional arguments by name. */
  readonly raw: Record<string, unknown>;
  /** The flags of the commands above it, which reach it too (the nearest first). */
  readonly inherited: readonly FlagDecl[];
}

/** Words commander answers itself (help, version), or reads in a way of its own. */
const LEFT_TO_COMMANDER = new Set(['--', '-h', '--help', '-v', '--version', 'help']);

export function plainLine(
  root: CommandDecl,
  globals: readonly FlagDecl[],
  argv: readonly string[],
): PlainLine | undefined {
  const path: CommandDecl[] = [root];
  for (
    let next = childNamed(root, argv[0] ?? '');
    next;
    next = childNamed(next, argv[path.length - 1] ?? '')
  ) {
    path.push(next);
  }
  const command = path[path.length - 1] as CommandDecl;
  const flags = command.load ? flagsOf(globals, path) : undefined;
  const read = flags && readFlags(flags, argv.slice(path.length - 1));
  if (!read || !readArguments(command, read.words, read.raw)) return undefined;
  return {
    path,
    raw: read.raw,
    inherited: path
      .slice(0, -1)
      .reverse()
      .flatMap((decl) => decl.flags ?? []),
  };
}

/** The flags the line's commands take, by spelling: undefined when two levels declare one (commander decides). */
function flagsOf(
  globals: readonly FlagDecl[],
  path: readonly CommandDecl[],
): Map<string, FlagDecl> | undefined {
  const flags = new Map<string, FlagDecl>();
  for (const flag of [...globals, ...path.flatMap((decl) => decl.flags ?? [])]) {
    for (const spelling of flag.short ? [flag.flag, flag.short] : [flag.flag]) {
      if (flags.has(spelling)) return undefined;
      flags.set(spelling, flag);
    }
  }
  return flags;
}

const repeatable = (flag: FlagDecl) => flag.kind === 'list' || flag.kind === 'paths';

interface Read {
  readonly raw: Record<string, unknown>;
  readonly given: Set<FlagDecl>;
  readonly words: string[];
}

/** The words after the command's: flags into `raw`, the others in order; undefined when not plain. */
function readFlags(flags: ReadonlyMap<string, FlagDecl>, words: readonly string[]): Read | undefined {
  const read: Read = { raw: {}, given: new Set(), words: [] };
  for (let at = 0; at < words.length; at++) {
    const word = words[at] as string;
    if (LEFT_TO_COMMANDER.has(word)) return undefined;
    if (!word.startsWith('-') || word === '-') {
      read.words.push(word);
      continue;
    }
    const used = readFlag(flags, read, word, words[at + 1]);
    if (used === 0) return undefined;
    at += used - 1;
  }
  return settled(flags, read) ? read : undefined;
}

/** One flag (and its value) into `read`: how many words it took, 0 when not plain. */
function readFlag(
  flags: ReadonlyMap<string, FlagDecl>,
  read: Read,
  word: string,
  next: string | undefined,
): number {
  const equals = word.startsWith('--') ? word.indexOf('=') : -1;
  const flag = flags.get(equals === -1 ? word : word.slice(0, equals));
  if (!flag || flag.optionalValue || (read.given.has(flag) && !repeatable(flag))) return 0;
  read.given.add(flag);
  const key = keyOf(flag.flag);
  if (!takesValue(flag)) {
    read.raw[key] = !flag.flag.startsWith('--no-');
    return equals === -1 ? 1 : 0;
  }
  const value = equals === -1 ? next : word.slice(equals + 1);
  if (!plainValue(flag, value)) return 0;
  read.raw[key] = repeatable(flag) ? [...((read.raw[key] as string[] | undefined) ?? []), value] : value;
  return equals === -1 ? 2 : 1;
}

/** The flags left out, as commander leaves them: false when two given conflict. */
function settled(flags: ReadonlyMap<string, FlagDecl>, read: Read): boolean {
  for (const flag of new Set(flags.values())) {
    // A flag that turns something off (`--no-input`) leaves it on when absent, as commander does.
    if (!read.given.has(flag) && flag.kind === 'boolean' && flag.flag.startsWith('--no-')) {
      read.raw[keyOf(flag.flag)] = true;
    }
    const other = flag.conflicts === undefined ? undefined : flags.get(flag.conflicts);
    if (other && read.given.has(flag) && read.given.has(other)) return false;
  }
  return true;
}

/** A value commander takes as it is: given, not dash-led (but `-`, stdin), one of the choices. */
function plainValue(flag: FlagDecl, value: string | undefined): value is string {
  if (value === undefined || (value.startsWith('-') && value !== '-')) return false;
  return !flag.choices || flag.choices.includes(value);
}

/** The positional words by their arguments' names: false when commander would refuse their number. */
function readArguments(
  command: CommandDecl,
  words: readonly string[],
  raw: Record<string, unknown>,
): boolean {
  const args = command.args ?? [];
  if (words.length > 0 && command.subcommands) return false;
  const variadic = args[args.length - 1]?.variadic === true;
  const required = args.filter((arg) => arg.required).length;
  if (words.length < required || (words.length > args.length && !variadic)) return false;
  args.forEach((arg, index) => {
    const value = arg.variadic ? words.slice(index) : words[index];
    if (value !== undefined && !(Array.isArray(value) && value.length === 0 && !arg.required))
      raw[arg.name] = value;
  });
  return true;
}

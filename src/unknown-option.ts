// An option a command does not have: the usage error says which commands do have it and the closest
// option this command has, through the one suggestion module (src/text/suggest.ts). Commander's own
// suggestion only knows the command's options and misses `--rate-limit` for `--rate`. A command that
// does not exist is told the same way at every level (`esign envelop`, `esign envelope crate`).
// Both read the command table, handed in by the parser.
import type { CommandDecl, FlagDecl } from './command-types.js';
import { childNamed } from './declarations.js';
import { UsageError } from './errors.js';
import { didYouMean, unknownOptionAdvice } from './text/suggest.js';
import { escapeControl } from './text/terminal-text.js';

/** The commands `names` leads to below the root, the root first. */
function commandsAlong(root: CommandDecl, names: readonly string[]): CommandDecl[] {
  const path = [root];
  for (const name of names) {
    const next = childNamed(path[path.length - 1] as CommandDecl, name);
    if (next) path.push(next);
  }
  return path;
}

/** The visible flags (long and short) of one command's own options. */
function flagsOf(flags: readonly FlagDecl[] | undefined): string[] {
  return (flags ?? []).filter((f) => !f.hidden).flatMap((f) => [f.flag, ...(f.short ? [f.short] : [])]);
}

/** Every command below `decl` (itself too, unless it is the root) that has the flag as its own option. */
function commandsWith(decl: CommandDecl, flag: string, path: string[]): string[] {
  const here = path.length > 1 && flagsOf(decl.flags).includes(flag) ? [path.join(' ')] : [];
  return [...here, ...(decl.subcommands ?? []).flatMap((c) => commandsWith(c, flag, [...path, c.name]))];
}

/** `typed` is not a flag of the command `names` leads to (below the root). */
export function unknownOptionError(
  root: CommandDecl,
  globals: readonly FlagDecl[],
  names: readonly string[],
  typed: string,
): UsageError {
  const flag = typed.includes('=') ? typed.slice(0, typed.indexOf('=')) : typed;
  const path = commandsAlong(root, names);
  const known = ['--help', '-h', ...flagsOf(globals), ...path.flatMap((decl) => flagsOf(decl.flags))];
  // --version is read only at the top.
  if (path.length === 1) known.push('--version', '-v');
  const shown = [root.name, ...names].join(' ');
  return new UsageError(
    `Unknown option '${flag}' for '${shown}'.${unknownOptionAdvice(flag, known, commandsWith(root, flag, [root.name]))}`,
    { hint: `Run \`${shown} --help\` to see its flags and examples.` },
  );
}

/** A subcommand the command `names` leads to does not have: the closest one, and the ones it has. */
export function unknownCommandError(root: CommandDecl, names: readonly string[], typed: string): UsageError {
  const decl = commandsAlong(root, names).at(-1) as CommandDecl;
  const visible = decl.subcommands ?? [];
  const known = visible.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  const shown = [root.name, ...names].join(' ');
  return new UsageError(
    `Unknown command '${escapeControl(typed)}' for '${shown}'.${didYouMean(typed, known)}`,
    { hint: `Commands: ${visible.map((c) => c.name).join(', ')}. See \`${shown} --help\`.` },
  );
}

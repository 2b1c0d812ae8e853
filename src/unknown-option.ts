// An option a command does not have: the usage error says which commands do have it and the closest
// option this command has, through the one suggestion module (src/text/suggest.ts). Commander's own
// suggestion only knows the command's options and misses `--rate-limit` for `--rate`. A command that
// does not exist is told the same way at every level (`esign envelop`, `esign envelope crate`).
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import { didYouMean, unknownOptionAdvice } from './text/suggest.js';
import { escapeControl } from './text/terminal-text.js';

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The visible flags (long and short) of one command's own options. */
function flagsOf(command: Command): string[] {
  return command.options
    .filter((o) => !o.hidden)
    .flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
}

/** Every command below `command` (itself included) that has the flag as its own option. */
function commandsWith(command: Command, flag: string): string[] {
  const here = command.parent && flagsOf(command).includes(flag) ? [pathOf(command)] : [];
  return [...here, ...command.commands.flatMap((c) => commandsWith(c, flag))];
}

export function unknownOptionError(command: Command, typed: string): UsageError {
  const flag = typed.includes('=') ? typed.slice(0, typed.indexOf('=')) : typed;
  let root = command;
  const own = ['--help', '-h'];
  for (let at: Command | null = command; at; at = at.parent) {
    own.push(...flagsOf(at));
    root = at;
  }
  // --version is read only at the top.
  const known = command === root ? own : own.filter((f) => f !== '--version' && f !== '-v');
  const path = pathOf(command);
  return new UsageError(
    `Unknown option '${flag}' for '${path}'.${unknownOptionAdvice(flag, known, commandsWith(root, flag))}`,
    { hint: `Run \`${path} --help\` to see its flags and examples.` },
  );
}

/** A subcommand `command` does not have: the closest one, and the ones it has. */
export function unknownCommandError(command: Command, typed: string): UsageError {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const names = visible.flatMap((c) => [c.name(), ...c.aliases()]);
  const path = pathOf(command);
  return new UsageError(
    `Unknown command '${escapeControl(typed)}' for '${path}'.${didYouMean(typed, names)}`,
    {
      hint: `Commands: ${visible.map((c) => c.name()).join(', ')}. See \`${path} --help\`.`,
    },
  );
}

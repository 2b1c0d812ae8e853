// Reading the command table (src/commands/table.ts): the flags a command takes, the command a line
// of words reaches, a flag's options key, and the tree completion walks. Plain functions over plain
// data: the parser, completion and the help all ask here.
import type { ArgDecl, CommandDecl, CommandTree, CompleteWith, FlagDecl } from './command-types.js';

/** The options key of a flag: `--max-rate-wait` → maxRateWait, `--no-input` → input. */
export function keyOf(flag: string): string {
  return flag.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Whether the flag is followed by a value. */
export function takesValue(flag: FlagDecl): boolean {
  return flag.kind !== 'boolean' && !flag.optionalValue;
}

/** The command named `word` (or by an alias) below `decl`. */
export function childNamed(decl: CommandDecl, word: string): CommandDecl | undefined {
  return decl.subcommands?.find((c) => c.name === word || (c.aliases ?? []).includes(word));
}

/** The flag spelled `word` (long or short; `--flag=value` too) among `flags`. */
export function flagSpelled(flags: readonly FlagDecl[], word: string): FlagDecl | undefined {
  const name = word.startsWith('--') && word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
  return flags.find((f) => f.flag === name || f.short === name);
}

/**
 * The commands the words lead to, as commander will read them: flags (and the values of those that
 * take one) are stepped over, and the first other word names a subcommand or ends the walk.
 */
export function pathOf(
  root: CommandDecl,
  globals: readonly FlagDecl[],
  words: readonly string[],
): CommandDecl[] {
  const path: CommandDecl[] = [root];
  let at = root;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--') break;
    if (word.startsWith('-') && word !== '-') {
      const flag = flagSpelled([...(at.flags ?? []), ...globals], word);
      if (flag && takesValue(flag) && !word.includes('=')) i++;
      continue;
    }
    const next = childNamed(at, word);
    if (!next) break;
    path.push(next);
    at = next;
  }
  return path;
}

/** How a flag's value completes. */
function completionOf(item: FlagDecl | ArgDecl): CompleteWith | undefined {
  if (item.complete) return item.complete;
  if (item.kind === 'path' || item.kind === 'paths') return 'file';
  if (item.choices) return item.choices;
  if ('offers' in item && item.offers) return item.offers;
  return undefined;
}

function treeOption(flag: FlagDecl): CommandTree['options'][number] {
  const complete = completionOf(flag);
  return {
    flags: [flag.flag, ...(flag.short ? [flag.short] : [])],
    takesValue: takesValue(flag),
    ...(complete ? { complete } : {}),
  };
}

/** The tree completion walks, from the table: visible commands and flags, and how values complete. */
export function treeOf(decl: CommandDecl, globals: readonly FlagDecl[], isRoot = true): CommandTree {
  const own = (decl.flags ?? []).filter((f) => !f.hidden);
  return {
    name: decl.name,
    aliases: [...(decl.aliases ?? [])],
    description: decl.summary,
    options: (isRoot ? [...globals, ...own] : own).map(treeOption),
    args: (decl.args ?? []).map((arg) => {
      const complete = completionOf(arg);
      return { name: arg.name, ...(complete ? { complete } : {}) };
    }),
    unusedGlobals: [...(decl.unusedGlobals ?? [])],
    subcommands: (decl.subcommands ?? []).map((c) => treeOf(c, globals, false)),
  };
}

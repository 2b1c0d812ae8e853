// `esign __complete -- <words>`, what the shells' completion scripts (src/commands/completion.ts) ask
// at each Tab: the candidates for the word under the cursor, over the command tree. The logic lives
// once, here, so it never falls behind the commands and flags and is the same in every shell:
// subcommands and flags at every depth, values of flags (choices, profile names from the config, the
// chosen template's fields for --set), and files where a file is expected. A candidate that ends
// with `=` (`company=`) is followed by its value: no shell puts a space after it.
import type { CommandTree, CompleteWith, ValueSourceName } from '../command-types.js';
import { HELP_TOPIC_NAMES } from './completion.decl.js';

/** One candidate: the word, and maybe a description the shell shows beside it. */
export interface Candidate {
  value: string;
  description?: string;
}

/** What the shell should offer: words (each maybe with a description), and whether files too. */
export interface Completion {
  words: Candidate[];
  files: boolean;
}

/** What the words before the cursor gave to a flag, by its long name (`--profile`). */
export interface CompletionLine {
  /** The flag's last value. */
  flag(name: string): string | undefined;
  /** Every value given to the flag, in order (`--set` is repeatable). */
  flagValues(name: string): readonly string[];
}

/**
 * The values of a source outside the command tree (profiles, template names), for the line so far.
 * The entry point passes the real completers (completion-values.ts); tests pass their own.
 */
export type ValueLookup = (source: ValueSourceName, line: CompletionLine) => readonly Candidate[];

type TreeOption = CommandTree['options'][number];

const HELP_FLAG: TreeOption = { flags: ['--help', '-h'], takesValue: false };
const NOTHING: Completion = { words: [], files: false };

function findOption(node: CommandTree, root: CommandTree, flag: string): TreeOption | undefined {
  const name = flag.includes('=') ? flag.slice(0, flag.indexOf('=')) : flag;
  return [...node.options, ...(node === root ? [] : root.options), HELP_FLAG].find((o) =>
    o.flags.includes(name),
  );
}

/**
 * A word a shell may put on the command line as it is: letters, digits and `_ . -`, starting with a
 * letter, a digit or `_` (a field's `name=` may end with `=`). bash inserts what completion offers
 * unquoted, and a field or profile name from a file (`$(id)`, `` `id` ``, `a;id`) would run when
 * Enter is pressed; such a name is left out (typed by hand, quoted, it works as ever).
 */
const PLAIN_WORD = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*=?$/u;

/** Whether completion may offer `value` (the command tree's own words, and values read from files). */
function offerable(value: string): boolean {
  return PLAIN_WORD.test(value);
}

function valuesFor(
  complete: CompleteWith | undefined,
  lookup: ValueLookup,
  line: CompletionLine,
): Completion {
  if (complete === 'file') return { words: [], files: true };
  if (typeof complete === 'string') {
    return { words: lookup(complete, line).filter((word) => offerable(word.value)), files: false };
  }
  return { words: (complete ?? []).map((value) => ({ value })), files: false };
}

/** Where the words before the cursor lead: the command reached, and what the next word is. */
interface Position {
  node: CommandTree;
  /** Positional arguments given to `node` so far. */
  positionals: number;
  /** The option whose value the next word is, when the last word was a flag that takes one. */
  pendingValue: TreeOption | undefined;
  /** A `--` was given: every later word is a positional argument. */
  afterDashes: boolean;
  /** The values given to each flag, in order, by the flag's first name (its long one). */
  given: Map<string, string[]>;
}

function walk(root: CommandTree, before: readonly string[]): Position {
  const at: Position = {
    node: root,
    positionals: 0,
    pendingValue: undefined,
    afterDashes: false,
    given: new Map(),
  };
  for (const word of before) step(at, word, root);
  return at;
}

/** Moves `at` past one word. */
function step(at: Position, word: string, root: CommandTree): void {
  if (at.pendingValue) {
    give(at, at.pendingValue, word);
    at.pendingValue = undefined;
  } else if (!at.afterDashes && word === '--') {
    at.afterDashes = true;
  } else if (!at.afterDashes && word.startsWith('-') && word !== '-') {
    const option = findOption(at.node, root, word);
    if (!option?.takesValue) return;
    if (word.includes('=')) give(at, option, word.slice(word.indexOf('=') + 1));
    else at.pendingValue = option;
  } else {
    const sub = at.positionals === 0 ? subcommandNamed(at.node, word) : undefined;
    if (sub) at.node = sub;
    else at.positionals++;
  }
}

function give(at: Position, option: TreeOption, value: string): void {
  const name = option.flags[0] ?? '';
  at.given.set(name, [...(at.given.get(name) ?? []), value]);
}

function subcommandNamed(node: CommandTree, word: string): CommandTree | undefined {
  return node.subcommands.find((c) => c.name === word || c.aliases.includes(word));
}

/** The long flags of `node` and the global ones that mean something to it; `--version` only at the top. */
function flagWords(node: CommandTree, root: CommandTree): Completion {
  const flags = [...node.options, ...(node === root ? [] : root.options), HELP_FLAG]
    .flatMap((o) => o.flags.filter((f) => f.startsWith('--')))
    .filter((f) => (f !== '--version' || node === root) && !node.unusedGlobals.includes(f));
  return { words: [...new Set(flags)].map((value) => ({ value })), files: false };
}

/**
 * `--flag=value` as one word: the flag's values, each written after `--flag=`. Files are the shell's
 * to list; each script completes them after the `=`.
 */
function inlineValues(at: Position, root: CommandTree, current: string, lookup: ValueLookup): Completion {
  const lead = current.slice(0, current.indexOf('=') + 1);
  const option = findOption(at.node, root, lead.slice(0, -1));
  if (!option?.takesValue) return NOTHING;
  const values = valuesFor(option.complete, lookup, lineOf(at));
  return { files: values.files, words: values.words.map((w) => ({ ...w, value: `${lead}${w.value}` })) };
}

function lineOf(at: Position): CompletionLine {
  return { flag: (name) => at.given.get(name)?.at(-1), flagValues: (name) => at.given.get(name) ?? [] };
}

/** After `esign help …`: the subcommands of the command named so far, and the help topics at the top. */
function helpWords(root: CommandTree, before: readonly string[]): Completion {
  let target = root;
  for (const word of before.slice(before.indexOf('help') + 1)) {
    target = target.subcommands.find((c) => c.name === word) ?? target;
  }
  const topics = target === root ? HELP_TOPIC_NAMES : [];
  return {
    words: [
      ...target.subcommands
        .filter((c) => c.name !== 'help')
        .map((c) => ({ value: c.name, description: c.description })),
      ...topics.map((value) => ({ value })),
    ],
    files: false,
  };
}

/** Everything the word under the cursor could be, before it is matched against what was typed. */
function candidates(
  root: CommandTree,
  before: readonly string[],
  current: string,
  lookup: ValueLookup,
): Completion {
  const at = walk(root, before);
  const { node, positionals, pendingValue, afterDashes } = at;
  if (pendingValue) return valuesFor(pendingValue.complete, lookup, lineOf(at));
  if (current.startsWith('-') && !afterDashes) {
    return current.startsWith('--') && current.includes('=')
      ? inlineValues(at, root, current, lookup)
      : flagWords(node, root);
  }
  if (node.name === 'help' && node !== root) return helpWords(root, before);
  if (node.subcommands.length > 0 && positionals === 0) {
    return {
      words: node.subcommands.map((c) => ({ value: c.name, description: c.description })),
      files: false,
    };
  }
  return valuesFor(node.args[positionals]?.complete, lookup, lineOf(at));
}

/**
 * Completes the word under the cursor. `words` are the words after `esign`, the last one being the
 * word under the cursor (empty after a space); `lookup` gives the values of profiles and templates.
 */
export function complete(root: CommandTree, words: readonly string[], lookup: ValueLookup): Completion {
  const current = words[words.length - 1] ?? '';
  const result = candidates(root, words.slice(0, -1), current, lookup);
  return {
    files: result.files,
    // A candidate that ends with `=` (`company=` for --set) is followed by a value, which has nothing
    // to offer: once it is typed whole, nothing is.
    words: result.words.filter(
      (w) => w.value.startsWith(current) && !(w.value === current && w.value.endsWith('=')),
    ),
  };
}

/** The `__complete` protocol: one candidate a line (value, a tab, a description), then `:files` or `:none`. */
export function formatCompletion(completion: Completion): string {
  const lines = completion.words.map((w) =>
    w.description ? `${w.value}\t${w.description.replace(/[\t\n]/g, ' ')}` : w.value,
  );
  return `${[...lines, completion.files ? ':files' : ':none'].join('\n')}\n`;
}

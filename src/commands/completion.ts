// esign completion bash|zsh|fish: a small script per shell that asks esign itself what can come
// next (`esign __complete -- <words>`), as gh and other cobra-built tools do. The logic lives once,
// here, over the command tree, so it never falls behind the commands and flags and is the same in
// every shell: subcommands and flags at every depth, values of flags (choices, profile names from
// the config, the chosen template's fields for --set), and files where a file is expected. A
// candidate that ends with `=` (`company=`) is followed by its value: no shell puts a space after it.
import * as z from 'zod/mini';
import type { CommandTree, CompleteWith, ValueSourceName } from '../command-types.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { globalOptions } from '../options.js';

export const options = z.object({
  ...globalOptions,
  shell: z.enum(['bash', 'zsh', 'fish'], { error: 'must be one of: bash, zsh, fish' }),
});

type CompletionOptions = z.infer<typeof options>;

export async function run(options: CompletionOptions, ctx: Context): Promise<number> {
  ctx.stdout.write(SCRIPTS[options.shell]);
  return ExitCode.ok;
}

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
export function offerable(value: string): boolean {
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
  const topics = target === root ? ['environment', 'exit-codes', 'accessibility'] : [];
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

// bash splits words at `=` (COMP_WORDBREAKS): `--template=off` is three words, and the text Tab
// replaces is only what follows the `=`. The script joins the words again (bash-completion's
// _get_comp_words_by_ref -n =, or by hand without it), asks esign with the whole `--template=off`,
// and takes the part before the `=` off each answer. Files after `--data=` are listed for the part
// after the `=`, in every shell.
const BASH = `# bash completion for esign (needs the bash-completion package for the best results)
_esign() {
  local cur words cword out line directive lead="" i nospace=""
  if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
    _get_comp_words_by_ref -n = cur words cword
  else
    words=() cword=0
    for ((i = 0; i <= COMP_CWORD; i++)); do
      if ((cword > 1)) && [[ \${COMP_WORDS[i]} == = || \${words[cword - 1]} == *= ]]; then
        words[cword - 1]+=\${COMP_WORDS[i]}
      else
        words[cword]=\${COMP_WORDS[i]}
        ((cword++))
      fi
    done
    ((cword--))
    cur=\${words[cword]}
  fi
  [[ $COMP_WORDBREAKS == *=* && $cur == *=* ]] && lead=\${cur%"\${cur##*=}"}
  out=$(esign __complete -- "\${words[@]:1:cword}" 2>/dev/null) || return 0
  COMPREPLY=()
  while IFS= read -r line; do
    case "$line" in
      :*) directive="\${line#:}" ;;
      "") ;;
      *) line="\${line%%$'\\t'*}"; COMPREPLY+=("\${line#"$lead"}"); [[ $line == *= ]] && nospace=1 ;;
    esac
  done <<< "$out"
  [[ -n $nospace ]] && compopt -o nospace 2>/dev/null
  if [[ $directive == files ]]; then
    compopt -o filenames 2>/dev/null
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "\${cur#*=}")
  fi
  return 0
}
complete -F _esign esign
`;

const ZSH = `#compdef esign
# zsh completion for esign
_esign() {
  local out directive line value
  local -a described open_described
  out=$(esign __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  for line in "\${(@f)out}"; do
    case "$line" in
      :*) directive="\${line#:}" ;;
      "") ;;
      *) value="\${line%%$'\\t'*}"
         # _describe reads "value:description": a colon in the value is escaped
         line="\${value//:/\\\\:}\${line#"$value"}"
         line="\${line/$'\\t'/:}"
         if [[ $value == *= ]]; then open_described+=("$line"); else described+=("$line"); fi ;;
    esac
  done
  # _describe lines up the descriptions in a column, as zsh does for its own commands
  (( \${#described} )) && _describe -t values esign described
  # company= (for --set) is followed by its value: no space after it
  (( \${#open_described} )) && _describe -t fields field open_described -S ''
  if [[ $directive == files ]]; then
    # --data=<Tab>: the files go after the first =
    [[ $PREFIX == --*=* ]] && compset -P 1 '*='
    _files
  fi
  return 0
}
# Loaded from fpath by compinit, this file is the body of _esign: complete right away, so the first
# Tab in a new shell works too. Sourced (source <(esign completion zsh)), register the function.
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _esign "$@"
else
  compdef _esign esign
fi
`;

const FISH = `# fish completion for esign
function __esign_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l token (commandline -ct)
    set -l out (esign __complete -- $words $token 2>/dev/null)
    or return
    for line in $out
        switch $line
            case ':files'
                # --data=<Tab>: the files go after the first =
                set -l lead (string match -r -- '^--[^=]*=' $token)
                for path in (__fish_complete_path (string replace -r -- '^--[^=]*=' '' $token))
                    printf '%s%s\\n' "$lead" $path
                end
            case ':*'
            case '*'
                printf '%s\\n' $line
        end
    end
end
complete -c esign -f -a '(__esign_complete)'
`;

const SCRIPTS = { bash: BASH, zsh: ZSH, fish: FISH } as const;

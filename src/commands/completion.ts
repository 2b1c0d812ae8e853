// esign completion bash|zsh|fish: a small script per shell that asks esign itself what can come
// next (`esign __complete -- <words>`), as gh and other cobra-built tools do. The logic lives once,
// here, over the command tree, so it never falls behind the commands and flags and is the same in
// every shell: subcommands and flags at every depth, values of flags (choices, profile names from
// the config), and files where a file is expected.
import * as z from 'zod/mini';
import type { CommandTree, CompleteWith } from '../command-types.js';
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

/** What the shell should offer: words (each maybe with a tab and a description), and whether files too. */
export interface Completion {
  words: { value: string; description?: string }[];
  files: boolean;
}

const HELP_FLAG = { flags: ['--help', '-h'], takesValue: false };

function findOption(node: CommandTree, root: CommandTree, flag: string) {
  const name = flag.includes('=') ? flag.slice(0, flag.indexOf('=')) : flag;
  return [...node.options, ...(node === root ? [] : root.options), HELP_FLAG].find((o) =>
    o.flags.includes(name),
  );
}

function valuesFor(complete: CompleteWith | undefined, profiles: readonly string[]): Completion {
  if (complete === 'file') return { words: [], files: true };
  if (complete === 'profile') return { words: profiles.map((value) => ({ value })), files: false };
  return { words: (complete ?? []).map((value) => ({ value })), files: false };
}

/** Where the words before the cursor lead: the command reached, and what the next word is. */
interface Position {
  node: CommandTree;
  /** Positional arguments given to `node` so far. */
  positionals: number;
  /** The option whose value the next word is, when the last word was a flag that takes one. */
  pendingValue: { complete?: CompleteWith | undefined; takesValue: boolean } | undefined;
  /** A `--` was given: every later word is a positional argument. */
  afterDashes: boolean;
}

function walk(root: CommandTree, before: readonly string[]): Position {
  const at: Position = { node: root, positionals: 0, pendingValue: undefined, afterDashes: false };
  for (const word of before) step(at, word, root);
  return at;
}

/** Moves `at` past one word. */
function step(at: Position, word: string, root: CommandTree): void {
  if (at.pendingValue) {
    at.pendingValue = undefined;
  } else if (!at.afterDashes && word === '--') {
    at.afterDashes = true;
  } else if (!at.afterDashes && word.startsWith('-') && word !== '-') {
    const option = findOption(at.node, root, word);
    if (option?.takesValue && !word.includes('=')) at.pendingValue = option;
  } else {
    const sub = at.positionals === 0 ? subcommandNamed(at.node, word) : undefined;
    if (sub) at.node = sub;
    else at.positionals++;
  }
}

function subcommandNamed(node: CommandTree, word: string): CommandTree | undefined {
  return node.subcommands.find((c) => c.name === word || c.aliases.includes(word));
}

/** The long flags of `node` (and the global ones); `--version` only at the top. */
function flagWords(node: CommandTree, root: CommandTree): Completion {
  const flags = [...node.options, ...(node === root ? [] : root.options), HELP_FLAG]
    .flatMap((o) => o.flags.filter((f) => f.startsWith('--')))
    .filter((f) => f !== '--version' || node === root);
  return { words: [...new Set(flags)].map((value) => ({ value })), files: false };
}

/** After `esign help …`: the subcommands of the command named so far, and the help topics at the top. */
function helpWords(root: CommandTree, before: readonly string[]): Completion {
  let target = root;
  for (const word of before.slice(before.indexOf('help') + 1)) {
    target = target.subcommands.find((c) => c.name === word) ?? target;
  }
  const topics = target === root ? ['environment', 'exit-codes'] : [];
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

/**
 * Completes the word under the cursor. `words` are the words after `esign`, the last one being the
 * word under the cursor (empty after a space).
 */
export function complete(
  root: CommandTree,
  words: readonly string[],
  profiles: readonly string[],
): Completion {
  const current = words[words.length - 1] ?? '';
  const before = words.slice(0, -1);
  const { node, positionals, pendingValue, afterDashes } = walk(root, before);
  let result: Completion;
  if (pendingValue) result = valuesFor(pendingValue.complete, profiles);
  else if (current.startsWith('-') && !afterDashes) result = flagWords(node, root);
  else if (node.name === 'help' && node !== root) result = helpWords(root, before);
  else if (node.subcommands.length > 0 && positionals === 0) {
    result = {
      words: node.subcommands.map((c) => ({ value: c.name, description: c.description })),
      files: false,
    };
  } else {
    result = valuesFor(node.args[positionals]?.complete, profiles);
  }
  return { files: result.files, words: result.words.filter((w) => w.value.startsWith(current)) };
}

/** The `__complete` protocol: one candidate a line (value, a tab, a description), then `:files` or `:none`. */
export function formatCompletion(completion: Completion): string {
  const lines = completion.words.map((w) =>
    w.description ? `${w.value}\t${w.description.replace(/[\t\n]/g, ' ')}` : w.value,
  );
  return `${[...lines, completion.files ? ':files' : ':none'].join('\n')}\n`;
}

const BASH = `# bash completion for esign (needs the bash-completion package for the best results)
_esign() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out line directive
  out=$(esign __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  COMPREPLY=()
  while IFS= read -r line; do
    case "$line" in
      :*) directive="\${line#:}" ;;
      "") ;;
      *) COMPREPLY+=("\${line%%$'\\t'*}") ;;
    esac
  done <<< "$out"
  if [[ $directive == files ]]; then
    compopt -o filenames 2>/dev/null
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -F _esign esign
`;

const ZSH = `#compdef esign
# zsh completion for esign
_esign() {
  local out directive line
  local -a values descriptions
  out=$(esign __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  for line in "\${(@f)out}"; do
    case "$line" in
      :*) directive="\${line#:}" ;;
      "") ;;
      *) values+=("\${line%%$'\\t'*}")
         if [[ $line == *$'\\t'* ]]; then descriptions+=("\${line%%$'\\t'*}  -- \${line#*$'\\t'}"); else descriptions+=("\${line}"); fi ;;
    esac
  done
  (( \${#values} )) && compadd -l -d descriptions -- "\${values[@]}"
  [[ $directive == files ]] && _files
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
    set -l out (esign __complete -- $words (commandline -ct) 2>/dev/null)
    or return
    for line in $out
        switch $line
            case ':files'
                __fish_complete_path (commandline -ct)
            case ':*'
            case '*'
                printf '%s\\n' $line
        end
    end
end
complete -c esign -f -a '(__esign_complete)'
`;

const SCRIPTS = { bash: BASH, zsh: ZSH, fish: FISH } as const;

// esign completion bash|zsh|fish: a small script per shell that asks esign itself what can come
// next (`esign __complete -- <words>`, src/commands/complete.ts), as gh and other cobra-built tools
// do.
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import type { completion } from './completion.decl.js';
import type { Options } from './global-flags.js';

type CompletionOptions = Options<typeof completion>;

export async function run(options: CompletionOptions, ctx: Context): Promise<number> {
  ctx.stdout.write(SCRIPTS[options.shell]);
  return ExitCode.ok;
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

// esign completion bash|zsh|fish: completion scripts generated from the command tree itself, so
// they never fall behind the commands and flags.
import type { Command } from 'commander';
import type { CommandInput } from '../cli.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';

interface Node {
  path: string[];
  subcommands: string[];
  flags: string[];
}

function walk(command: Command, path: string[], globals: string[], out: Node[]): void {
  const own = command.options.flatMap((option) =>
    [option.long, option.short].filter((f): f is string => Boolean(f)),
  );
  const flags = [...new Set([...own, ...globals, '--help'])];
  out.push({ path, subcommands: command.commands.map((c) => c.name()), flags });
  for (const child of command.commands)
    walk(
      child,
      [...path, child.name()],
      path.length === 0 ? own.filter((f) => f !== '--version' && f !== '-v') : globals,
      out,
    );
}

function bash(nodes: Node[]): string {
  const cases = nodes
    .map((n) => `    "${n.path.join(' ')}") words="${[...n.subcommands, ...n.flags].join(' ')}" ;;`)
    .join('\n');
  return `# bash completion for esign
_esign() {
  local cur path="" i w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    case " $path $w" in
${nodes
  .filter((n) => n.subcommands.length > 0)
  .flatMap((n) =>
    n.subcommands.map((s) => `      " ${[...n.path, s].join(' ')}") path="${[...n.path, s].join(' ')}" ;;`),
  )
  .join('\n')}
    esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [[ $cur != -* && $words != *[a-z]* ]] && COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o default -F _esign esign
`;
}

function zsh(nodes: Node[]): string {
  return `#compdef esign
# zsh completion for esign
_esign() {
  local -a words_
  local path_="" w
  for w in \${words[2,CURRENT-1]}; do
    [[ $w == -* ]] && continue
    case "$path_ $w" in
${nodes
  .filter((n) => n.subcommands.length > 0)
  .flatMap((n) =>
    n.subcommands.map(
      (s) =>
        `      "${n.path.length ? ` ${n.path.join(' ')}` : ''} ${s}") path_="${[...n.path, s].join(' ')}" ;;`,
    ),
  )
  .join('\n')}
    esac
  done
  case "$path_" in
${nodes.map((n) => `    "${n.path.join(' ')}") words_=(${[...n.subcommands, ...n.flags].join(' ')}) ;;`).join('\n')}
  esac
  compadd -- $words_
  _files
}
compdef _esign esign
`;
}

function fish(nodes: Node[]): string {
  const lines = ['# fish completion for esign', 'complete -c esign -f'];
  for (const n of nodes) {
    const condition =
      n.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}`;
    for (const sub of n.subcommands) lines.push(`complete -c esign -n '${condition}' -a ${sub}`);
    for (const flag of n.flags) {
      if (flag.startsWith('--')) lines.push(`complete -c esign -n '${condition}' -l ${flag.slice(2)}`);
      else lines.push(`complete -c esign -n '${condition}' -s ${flag.slice(1)}`);
    }
  }
  lines.push("complete -c esign -n '__fish_seen_subcommand_from batch' -F");
  return `${lines.join('\n')}\n`;
}

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const shell = input.args[0] ?? '';
  const generators: Record<string, (nodes: Node[]) => string> = { bash, zsh, fish };
  const generate = generators[shell];
  if (!generate) throw new UsageError(`Unknown shell '${shell}'.`, { hint: 'Use one of: bash, zsh, fish.' });
  let root = input.command;
  while (root.parent) root = root.parent;
  const nodes: Node[] = [];
  walk(root, [], [], nodes);
  ctx.stdout.write(generate(nodes));
  return ExitCode.ok;
}

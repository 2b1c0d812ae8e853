// The declarations of `esign completion` and `esign help`.
import type { CommandDecl, Loaded } from '../command-types.js';

export const completion = {
  name: 'completion',
  summary: 'Print a shell completion script',
  args: [
    {
      name: 'shell',
      required: true,
      kind: 'choice',
      choices: ['bash', 'zsh', 'fish'],
      help: 'The shell: bash, zsh or fish',
    },
  ],
  unusedGlobals: ['--profile', '--base-url', '--timeout'],
  exitCodes: [0, 2],
  examples: [
    '# bash (needs the bash-completion package: apt install bash-completion, brew install bash-completion@2)',
    'mkdir -p ~/.local/share/bash-completion/completions',
    'esign completion bash > ~/.local/share/bash-completion/completions/esign',
    '# zsh',
    'mkdir -p ~/.zfunc && esign completion zsh > ~/.zfunc/_esign',
    '# then in ~/.zshrc, before compinit: fpath+=(~/.zfunc)',
    '# fish',
    'mkdir -p ~/.config/fish/completions && esign completion fish > ~/.config/fish/completions/esign.fish',
  ],
  load: (): Loaded => import('./completion.js'),
} as const satisfies CommandDecl;

/** The topics `esign help <topic>` shows (src/help-topics.ts holds their text). */
export const HELP_TOPIC_NAMES = ['environment', 'exit-codes', 'accessibility'] as const;

export const help = {
  name: 'help',
  summary: 'Show help for a command, or a topic: environment, exit-codes, accessibility',
  args: [
    {
      name: 'topic',
      required: false,
      variadic: true,
      kind: 'text',
      help: 'A command (e.g. envelope create) or a topic',
    },
  ],
  unusedGlobals: ['--profile', '--base-url', '--timeout'],
  exitCodes: [0, 2],
  examples: [
    'esign help envelope create',
    'esign help environment',
    'esign help exit-codes',
    'esign help accessibility',
  ],
} as const satisfies CommandDecl;

// The declarations of the commands about who esign is: login, logout, status (whoami).
import type { CommandDecl, Loaded } from '../command-types.js';

export const login = {
  name: 'login',
  summary: 'Store an API token, or the command that prints it (and optionally the base URL), in a profile',
  description:
    'Without --with-token and at a terminal, the token is asked for with hidden input. A token is never taken as a flag: it would show in ps and in your shell history.',
  flags: [
    { flag: '--with-token', kind: 'boolean', help: 'Read the token from standard input' },
    {
      flag: '--token-command',
      kind: 'text',
      value: 'command',
      help: 'Store a command that prints the token (a password manager, a keychain) instead of the token; it runs when a command needs the token',
    },
    { flag: '--token', kind: 'text', value: 'value', optionalValue: true, hidden: true, help: 'Refused' },
  ],
  unusedGlobals: ['--timeout'],
  exitCodes: [0, 2, 130],
  related: ['environment'],
  examples: [
    'esign login --base-url https://esign.example.com/api/v1',
    '# In CI, from a secret:',
    'printf %s "$ESIGN_TOKEN_SECRET" | esign login --with-token --profile ci',
    '# The token from where you keep it; the first line the command prints is the token:',
    "esign login --token-command 'op read op://Private/esign/token'                 # 1Password",
    "esign login --token-command 'pass show esign/token'                           # pass",
    "esign login --token-command 'security find-generic-password -s esign -w'      # macOS keychain",
    "esign login --token-command 'secret-tool lookup service esign'                # Secret Service (Linux)",
    'esign login --token-command \'pwsh -NoProfile -Command "Get-Secret -Name esign -AsPlainText"\'   # Windows',
    '',
    '# Tokens are made in the dashboard: Settings → API Tokens → Create New Token.',
    '# A token is never taken as a flag: it would show in ps and in your shell history.',
  ],
  load: (): Loaded => import('./login.js'),
} as const satisfies CommandDecl;

export const logout = {
  name: 'logout',
  summary: "Remove a profile's stored token",
  description:
    'The token stays valid on the server until it is revoked in the dashboard. Exit 0 also when there was none.',
  unusedGlobals: ['--base-url', '--timeout'],
  exitCodes: [0, 2],
  examples: ['esign logout', 'esign logout --profile staging'],
  load: (): Loaded => import('./logout.js'),
} as const satisfies CommandDecl;

export const status = {
  name: 'status',
  aliases: ['whoami'],
  summary: 'Show the active profile, base URL, where the token comes from and the config file',
  flags: [{ flag: '--json', kind: 'boolean', help: 'Print one JSON object' }],
  exitCodes: [0, 2, 3],
  related: ['environment'],
  examples: ['esign status', 'esign status --json | jq -r .base_url.value'],
  load: (): Loaded => import('./status.js'),
} as const satisfies CommandDecl;

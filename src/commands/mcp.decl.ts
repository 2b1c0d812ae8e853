// The declarations of `esign mcp` (the Model Context Protocol server) and of the commands that
// register it with a client.
import type { CommandDecl, Loaded } from '../command-types.js';
import { MCP_CLIENTS } from '../mcp/client-configs.js';

const CONFIRM_CHOICES = ['ask', 'never'] as const;

const client = {
  name: 'client',
  required: true,
  kind: 'choice',
  choices: MCP_CLIENTS,
  help: 'The client: claude-code, claude-desktop, cursor or vscode',
} as const;

export const mcpInstall = {
  name: 'install',
  summary: "Register `esign mcp` with an MCP client, in the client's own config file",
  description:
    "The token is never written: the server reads the profile's stored token (esign login), or ESIGN_TOKEN from the environment the client starts it in.",
  args: [client],
  flags: [
    {
      flag: '--scope',
      kind: 'choice',
      value: 'scope',
      choices: ['user', 'project'],
      shownDefault: 'user',
      help: "Which config: user (the client's config for you) or project (this folder's)",
    },
    {
      flag: '--name',
      kind: 'text',
      value: 'name',
      shownDefault: 'esign',
      help: "The entry's name in the client",
    },
    {
      flag: '--confirm',
      kind: 'choice',
      value: 'when',
      choices: CONFIRM_CHOICES,
      shownDefault: 'ask',
      help: 'Start the server with --confirm never',
    },
    {
      flag: '--allow-domain',
      kind: 'list',
      value: 'domain',
      help: 'Start the server with --allow-domain; repeatable',
    },
    { flag: '--read-only', kind: 'boolean', help: 'Start the server with --read-only' },
    { flag: '--tools', kind: 'text', value: 'names', help: 'Start the server with --tools' },
    {
      flag: '--command',
      kind: 'text',
      value: 'path',
      shownDefault:
        'the esign running now, started the way it was installed: by its full path, or npx -y esign@<version>',
      help: 'The command the client runs',
    },
    {
      flag: '--config-file',
      kind: 'path',
      value: 'file',
      help: "Edit this file (the client's layout) instead of the usual one",
    },
    {
      flag: '--no-check',
      kind: 'boolean',
      help: 'Write the entry without first starting it to see it answer as an MCP server (a command only the client can run)',
    },
    {
      flag: '--print',
      kind: 'boolean',
      help: 'Show the entry and the file it would be written to; change nothing',
    },
    { flag: '--json', kind: 'boolean', help: 'Print one JSON object' },
  ],
  exitCodes: [0, 2],
  examples: [
    'esign mcp install claude-code',
    'esign mcp install claude-desktop --profile production --allow-domain example.com',
    'esign mcp install vscode --scope project --read-only',
    'esign mcp install cursor --print',
    "# The token is never written: the server reads the profile's stored token (esign login),",
    '# or ESIGN_TOKEN from the environment the client starts it in.',
  ],
  load: (): Loaded => import('./mcp-install.js').then((module) => module.install),
} as const satisfies CommandDecl;

export const mcpUninstall = {
  name: 'uninstall',
  summary: "Remove the `esign mcp` entry from an MCP client's config file",
  args: [client],
  flags: [
    {
      flag: '--scope',
      kind: 'choice',
      value: 'scope',
      choices: ['user', 'project'],
      shownDefault: 'user',
      help: 'Which config: user or project',
    },
    { flag: '--name', kind: 'text', value: 'name', shownDefault: 'esign', help: "The entry's name" },
    { flag: '--config-file', kind: 'path', value: 'file', help: 'Edit this file instead of the usual one' },
    { flag: '--print', kind: 'boolean', help: 'Show what would be removed; change nothing' },
    { flag: '--json', kind: 'boolean', help: 'Print one JSON object' },
  ],
  exitCodes: [0, 2],
  examples: ['esign mcp uninstall claude-code', 'esign mcp uninstall vscode --scope project'],
  load: (): Loaded => import('./mcp-install.js').then((module) => module.uninstall),
} as const satisfies CommandDecl;

export const mcp = {
  name: 'mcp',
  summary: 'Serve esign to assistants: a Model Context Protocol server on stdin and stdout',
  description:
    'It serves the tools create_envelope, validate_envelope, list_templates and get_status, the templates in force as resources (esign://templates, esign://templates/{name}), and the prompt send_envelope. create_envelope shows the person what will be sent and sends only on their yes; with a client that cannot ask (no elicitation), it sends nothing unless the server was started with --confirm never.',
  flags: [
    {
      flag: '--confirm',
      kind: 'choice',
      value: 'when',
      choices: CONFIRM_CHOICES,
      env: 'ESIGN_MCP_CONFIRM',
      shownDefault: 'ask',
      help: 'Whether a person confirms each envelope through the client before it is sent: ask (with a client that cannot ask, nothing is sent) or never',
    },
    {
      flag: '--allow-domain',
      kind: 'list',
      value: 'domain',
      env: 'ESIGN_MCP_ALLOW_DOMAINS',
      help: 'Send only to signatories at this email domain (*.example.com: and its subdomains); repeatable (the variable: comma-separated)',
    },
    {
      flag: '--read-only',
      kind: 'boolean',
      env: 'ESIGN_MCP_READ_ONLY',
      help: 'List only the tools that send nothing (validate_envelope, list_templates, get_status)',
    },
    {
      flag: '--tools',
      kind: 'text',
      value: 'names',
      help: 'List only these tools, comma-separated: create_envelope, validate_envelope, list_templates, get_status',
    },
  ],
  exitCodes: [0, 2, 3],
  related: ['environment'],
  examples: [
    '# Started by an MCP client, not by hand; register it with one (never the token: it reads the profile):',
    'esign mcp install claude-code --profile production --allow-domain example.com',
    'esign mcp install claude-desktop --print   # show what it would write',
    '# An assistant that may check envelopes but never send one:',
    'esign mcp --read-only',
    '# An agent trusted to send without a person confirming each envelope:',
    'esign mcp --confirm never --allow-domain example.com',
    '# Rehearse against the sandbox (ESIGN_TOKEN from `esign sandbox`):',
    'ESIGN_BASE_URL=http://127.0.0.1:4010/api/v1 esign mcp',
  ],
  subcommands: [mcpInstall, mcpUninstall],
  load: (): Loaded => import('./mcp.js'),
} as const satisfies CommandDecl;

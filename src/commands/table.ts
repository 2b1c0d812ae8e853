// The command table: every command's declaration, in the order `esign --help` lists them. The
// parser, the options schemas, completion, the help, the reference and the man pages are all made
// from it (src/command-types.ts says how).
import type { CommandDecl, CommandTree } from '../command-types.js';
import { treeOf } from '../declarations.js';
import { login, logout, status } from './account.decl.js';
import { completion, help } from './completion.decl.js';
import { config, profile } from './config.decl.js';
import { envelope } from './envelope/envelope.decl.js';
import { GLOBAL_FLAGS, VERSION_FLAG } from './global-flags.js';
import { mcp } from './mcp.decl.js';
import { sandbox } from './sandbox.decl.js';
import { init, templates } from './templates.decl.js';

export const ROOT = {
  name: 'esign',
  summary: 'Create and send electronic-signature envelopes from the command line.',
  exitCodes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 130],
  related: ['environment', 'exit-codes', 'accessibility'],
  examples: [
    'esign login',
    'esign envelope create --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --name "Ada Lovelace" --email ada@example.com',
    'esign sandbox        # a local API to try everything with no account',
    'esign help environment   # every variable, and which setting wins',
    'esign help exit-codes    # what each exit code means',
    'esign help accessibility # plain output for screen readers (ACCESSIBLE=1)',
  ],
  subcommands: [
    help,
    login,
    logout,
    status,
    templates,
    init,
    config,
    profile,
    envelope,
    sandbox,
    mcp,
    completion,
  ],
} as const satisfies CommandDecl;

/** The tree completion walks: every command and flag of the table, `--version` at the top. */
export function commandTree(): CommandTree {
  return treeOf(ROOT, [...GLOBAL_FLAGS, VERSION_FLAG]);
}

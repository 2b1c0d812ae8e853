// The global flags: every command takes them (commander merges them in), except the connection flags
// a command declares it ignores (its unusedGlobals).
import { CI_OUTPUT_MODES } from '../ci/output-modes.js';
import type { CommandDecl, FlagDecl, FlagOptions, OptionsOf } from '../command-types.js';
import { DEFAULT_PROFILE, DEFAULT_TIMEOUT_SECONDS } from '../config/defaults.js';

export const GLOBAL_FLAGS = [
  {
    flag: '--profile',
    kind: 'text',
    value: 'name',
    help: 'Profile to use',
    env: 'ESIGN_PROFILE',
    shownDefault: DEFAULT_PROFILE,
    complete: 'profile',
    resume: true,
  },
  {
    flag: '--base-url',
    kind: 'text',
    value: 'url',
    help: 'API base URL, including /api/v1',
    env: 'ESIGN_BASE_URL',
    resume: true,
  },
  {
    flag: '--timeout',
    kind: 'text',
    value: 'seconds',
    help: 'Request timeout in seconds',
    env: 'ESIGN_TIMEOUT',
    shownDefault: String(DEFAULT_TIMEOUT_SECONDS),
    resume: true,
  },
  {
    flag: '--verbose',
    kind: 'boolean',
    help: 'Show requests, timings and where each setting came from (never the token)',
  },
  {
    flag: '--ci-output',
    kind: 'choice',
    value: 'mode',
    choices: CI_OUTPUT_MODES,
    help: 'GitHub Actions outputs, masks and annotations',
    env: 'ESIGN_CI',
    shownDefault: 'auto: on when GITHUB_ACTIONS=true',
    resume: true,
  },
] as const satisfies readonly FlagDecl[];

/** Every command's --help and -h. */
export const HELP_FLAG = {
  flag: '--help',
  short: '-h',
  kind: 'boolean',
  help: 'Show help for a command',
} as const;

/** `esign --version`, read only at the top. */
export const VERSION_FLAG = {
  flag: '--version',
  short: '-v',
  kind: 'boolean',
  help: 'Print the version',
} as const;

/** The global flags as a command receives them. */
export type GlobalOptions = FlagOptions<typeof GLOBAL_FLAGS>;

/** The options the command declared as `D` receives: its own flags and arguments, and the global flags. */
export type Options<D extends CommandDecl> = OptionsOf<D, typeof GLOBAL_FLAGS> & {
  json?: boolean | undefined;
};

// The declarations of `esign config` and `esign profile`: a profile's settings and the stored profiles.
import type { CommandDecl, Loaded } from '../command-types.js';
import { PREFERENCE_KEYS } from '../config/preferences.js';

/** The settings a profile stores. */
export const PROFILE_KEYS = ['base_url'] as const;
/** Every setting `esign config` reads and changes: a profile's, and the preferences (for every profile). */
export const SETTING_KEYS = [...PROFILE_KEYS, ...PREFERENCE_KEYS] as const;

const key = {
  name: 'key',
  required: true,
  kind: 'text',
  offers: SETTING_KEYS,
  help: 'Setting name (base_url; or accessible, token_age_reminder: for every profile)',
} as const;

const PROFILE_ONLY = ['--base-url', '--timeout'] as const;

export const configGet = {
  name: 'get',
  summary: 'Print a setting (exit 1 when it is not set)',
  args: [key],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 1, 2],
  examples: [
    'esign config get base_url',
    'URL=$(esign config get base_url --profile staging) || echo "not set"',
  ],
  load: (): Loaded => import('./config.js').then((module) => module.get),
} as const satisfies CommandDecl;

export const configSet = {
  name: 'set',
  summary: 'Store a setting in the profile (a preference: for every profile)',
  args: [
    key,
    {
      name: 'value',
      required: true,
      kind: 'text',
      help: 'New value (a URL for base_url; true or false for the others)',
    },
  ],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 2],
  examples: [
    'esign config set base_url https://esign.example.com/api/v1',
    'esign config set base_url http://127.0.0.1:4010/api/v1 --profile sandbox',
  ],
  load: (): Loaded => import('./config.js').then((module) => module.set),
} as const satisfies CommandDecl;

const configUnset = {
  name: 'unset',
  summary: 'Remove a setting from the profile',
  args: [key],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 2],
  examples: ['esign config unset base_url --profile staging'],
  load: (): Loaded => import('./config.js').then((module) => module.unset),
} as const satisfies CommandDecl;

export const configList = {
  name: 'list',
  summary: "List the profile's settings",
  flags: [{ flag: '--json', kind: 'boolean', help: 'Print one JSON object' }],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 2],
  examples: ['esign config list', 'esign config list --json | jq -r .profiles[]'],
  load: (): Loaded => import('./config.js').then((module) => module.list),
} as const satisfies CommandDecl;

export const config = {
  name: 'config',
  summary:
    "Read and change a profile's settings (base_url) and your preferences (accessible, token_age_reminder)",
  exitCodes: [0, 2],
  related: ['accessibility'],
  examples: [
    'esign config set base_url https://esign.example.com/api/v1',
    'esign config get base_url --profile staging',
    'esign config set accessible true        # plain output for screen readers, for every profile',
    'esign config set token_age_reminder false   # no reminder to rotate a token stored 90+ days ago',
    'esign config list --json',
  ],
  subcommands: [configGet, configSet, configUnset, configList],
} as const satisfies CommandDecl;

export const profileList = {
  name: 'list',
  summary: 'List the stored profiles, their base URLs and tokens (masked); * marks the active one',
  flags: [{ flag: '--json', kind: 'boolean', help: 'Print one JSON object' }],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 2],
  examples: ['esign profile list', "esign profile list --json | jq -r '.profiles[].name'"],
  load: (): Loaded => import('./profile.js').then((module) => module.list),
} as const satisfies CommandDecl;

const profileUse = {
  name: 'use',
  summary:
    'Make a stored profile the default (below --profile, ESIGN_PROFILE and the project file); "default" goes back',
  args: [
    {
      name: 'name',
      required: true,
      kind: 'text',
      complete: 'profile',
      help: 'The profile to use from now on',
    },
  ],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 2],
  examples: [
    'esign profile use sandbox',
    'esign status            # Profile  sandbox (the default chosen with `esign profile use`, …)',
    'esign profile use default',
  ],
  load: (): Loaded => import('./profile.js').then((module) => module.use),
} as const satisfies CommandDecl;

export const profileDelete = {
  name: 'delete',
  summary: 'Delete a stored profile with its base URL and token',
  args: [{ name: 'name', required: true, kind: 'text', complete: 'profile', help: 'The profile to delete' }],
  unusedGlobals: PROFILE_ONLY,
  exitCodes: [0, 2],
  examples: [
    'esign profile delete staging',
    '# The token stays valid on the server until you revoke it in the dashboard.',
  ],
  load: (): Loaded => import('./profile.js').then((module) => module.remove),
} as const satisfies CommandDecl;

export const profile = {
  name: 'profile',
  summary: 'List the stored profiles, choose the default one, or delete one',
  exitCodes: [0, 2],
  examples: ['esign profile list', 'esign profile use sandbox', 'esign profile delete staging'],
  subcommands: [profileList, profileUse, profileDelete],
} as const satisfies CommandDecl;

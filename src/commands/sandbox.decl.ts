// The declaration of `esign sandbox`, the local implementation of the API.
import type { CommandDecl, Loaded } from '../command-types.js';
import {
  DEFAULT_ENVELOPE_BUDGET_MIB,
  DEFAULT_KEEP_REQUESTS,
  RATE_LIMIT_HEADER_STYLES,
} from '../sandbox/defaults.js';

export const sandbox = {
  name: 'sandbox',
  summary: 'Run a local implementation of the API, for trying esign and rehearsing scripts',
  description:
    'It listens on 127.0.0.1 by default and prints its base URL and, for each seeded organisation, a token and template ids with their merge tags (with --json, one JSON object on stdout).',
  flags: [
    {
      flag: '--port',
      kind: 'int',
      value: 'n',
      range: [0, 65535],
      expected: 'a port number from 0 to 65535 (0 picks a free port)',
      default: 4010,
      help: 'Port to listen on (0 picks a free one)',
    },
    { flag: '--host', kind: 'address', value: 'addr', default: '127.0.0.1', help: 'Address to listen on' },
    {
      flag: '--seed',
      kind: 'path',
      value: 'file',
      help: 'JSON file of organisations, tokens and templates (replaces the defaults)',
    },
    {
      flag: '--state',
      kind: 'path',
      value: 'file',
      help: 'Keep envelopes and revocations in this file across restarts',
    },
    { flag: '--json', kind: 'boolean', help: 'Print the start-up details as one JSON object on stdout' },
    {
      flag: '--latency',
      kind: 'int',
      value: 'ms',
      range: [0, 60_000],
      expected: 'a whole number of milliseconds from 0 to 60000',
      help: 'Delay every answer by this many milliseconds',
    },
    {
      flag: '--fail-rate',
      kind: 'share',
      value: '0..1',
      help: 'Share of create requests answered 503 with Retry-After',
    },
    {
      flag: '--rate-limit',
      kind: 'rate-limit',
      value: 'n[/window]',
      help: 'Create requests allowed per token and window (50, 50/s, 100/min, 50/5s, 0.5/s) before 429 with Retry-After',
    },
    {
      flag: '--rate-limit-headers',
      kind: 'choice',
      value: 'style',
      choices: RATE_LIMIT_HEADER_STYLES,
      default: 'x-ratelimit',
      help: 'Rate-limit headers on API answers',
    },
    {
      flag: '--drop-rate',
      kind: 'share',
      value: '0..1',
      help: 'Share of creates whose connection is closed after the envelope was made',
    },
    {
      flag: '--seed-random',
      kind: 'int',
      value: 'n',
      range: [0, 2 ** 32 - 1],
      help: 'Seed for the random failures, to make them reproducible',
    },
    {
      flag: '--keep-requests',
      kind: 'int',
      value: 'n',
      range: [0, 1_000_000],
      expected: 'a whole number from 0 (keep none) to 1000000',
      default: DEFAULT_KEEP_REQUESTS,
      help: 'Requests kept for GET /_sandbox/requests (0 keeps none)',
    },
    {
      flag: '--envelope-budget',
      kind: 'int',
      value: 'MiB',
      range: [1, 1_048_576],
      expected: 'a whole number of MiB from 1 to 1048576',
      default: DEFAULT_ENVELOPE_BUDGET_MIB,
      help: "Memory the envelopes may take, never more than Node's heap holds (a note at start says when the heap sets it); past it a create is answered 507 and nothing is made",
    },
  ],
  unusedGlobals: ['--profile', '--base-url', '--timeout'],
  streamsStderr: true,
  exitCodes: [0, 2, 130],
  examples: [
    'esign sandbox',
    'esign sandbox --port 0 --json > sandbox.json &',
    'esign sandbox --state sandbox-state.json --fail-rate 0.1 --seed-random 42',
    'esign sandbox --rate-limit 100/min --rate-limit-headers ietf',
  ],
  load: (): Loaded => import('./sandbox.js'),
} as const satisfies CommandDecl;

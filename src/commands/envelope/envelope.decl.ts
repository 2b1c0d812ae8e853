// The declarations of `esign envelope create` and `esign envelope batch`.
import { DEFAULT_MAX_RATE_WAIT_MS } from '../../batch/defaults.js';
import type { CommandDecl, Loaded } from '../../command-types.js';

/** --concurrency when neither the flag nor the project file says. */
export const DEFAULT_CONCURRENCY = 4;

export const create = {
  name: 'create',
  summary: 'Create an envelope from a template and get its signing URL',
  description:
    'At a terminal, what is missing is asked for, shown, and confirmed before it is sent. Every input problem is reported before anything is sent.',
  flags: [
    {
      flag: '--template',
      kind: 'text',
      value: 'id|name',
      complete: 'template',
      help: 'Template id (a ULID), or a name from .esign.json; required',
    },
    {
      flag: '--data',
      kind: 'paths',
      value: 'file',
      help: 'JSON object of merge data; - reads stdin; repeatable, later files win',
    },
    {
      flag: '--set',
      kind: 'list',
      value: 'key=value',
      complete: 'field',
      help: 'One merge field; repeatable; wins over --data',
    },
    { flag: '--name', kind: 'text', value: 'full name', help: "Signatory's full name; required" },
    { flag: '--email', kind: 'text', value: 'address', help: "Signatory's email; required" },
    { flag: '--phone', kind: 'text', value: 'number', help: "Signatory's phone number" },
    {
      flag: '--expires-in-days',
      kind: 'text',
      value: 'n',
      shownDefault: "the API's, 30",
      help: 'Days until the envelope expires',
    },
    {
      flag: '--dry-run',
      kind: 'boolean',
      help: 'Print the request body and exit; nothing is sent, no token needed',
    },
    { flag: '--json', kind: 'boolean', conflicts: '--quiet', help: 'Print the envelope as one JSON object' },
    { flag: '--quiet', short: '-q', kind: 'boolean', help: 'Print only the signing URL' },
    {
      flag: '--open',
      kind: 'boolean',
      help: 'Open the signing URL in the browser ($BROWSER, else the system opener)',
    },
    {
      flag: '--qr',
      kind: 'boolean',
      help: 'Draw the signing URL as a QR code on stderr, to sign on a phone',
    },
    {
      flag: '--yes',
      short: '-y',
      kind: 'boolean',
      help: 'At a terminal, send without the confirmation that follows the questions',
    },
    {
      flag: '--no-input',
      kind: 'boolean',
      env: 'ESIGN_NO_INPUT',
      help: 'Never ask: fail on what is missing, as off a terminal',
    },
  ],
  exitCodes: [0, 2, 3, 4, 5, 6, 7, 9, 130],
  related: ['environment', 'exit-codes', 'accessibility'],
  examples: [
    '# At a terminal, ask for what is missing, show it, and confirm:',
    'esign envelope create',
    'esign envelope create --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E \\',
    '    --name "Ada Lovelace" --email ada@example.com --set company=Analytical --set start_date=2026-12-01',
    '# Merge data from a file and from another command:',
    'jq -n \'{role: "Engineer"}\' | esign envelope create --template 01JD… --data defaults.json --data - --name … --email …',
    '# In a script: just the URL, or the whole envelope as JSON',
    'URL=$(esign envelope create --template 01JD… --name "Ada" --email ada@example.com -q)',
    'esign envelope create … --json | jq -r .expires_at',
    '# In CI: the token from a secret, nothing stored',
    'ESIGN_TOKEN="$ESIGN_TOKEN_SECRET" ESIGN_BASE_URL=https://esign.example.com/api/v1 esign envelope create … --json',
  ],
  load: (): Loaded => import('./create.js'),
} as const satisfies CommandDecl;

export const batch = {
  name: 'batch',
  summary: 'Create one envelope per record of a CSV or JSON Lines file',
  description:
    'Every record is checked before the first request. Results stream as JSON Lines, one line a record. A run that broke off is finished with --resume: records already created are not sent again, and a record whose outcome is unknown is sent again only with --retry-unknown.',
  args: [
    {
      name: 'file',
      required: true,
      kind: 'path',
      help: 'A .csv or .jsonl file; - reads stdin (with --format)',
    },
  ],
  flags: [
    {
      flag: '--format',
      kind: 'choice',
      value: 'format',
      choices: ['jsonl', 'csv'],
      resume: true,
      help: 'Input format (needed for stdin)',
    },
    {
      flag: '--template',
      kind: 'text',
      value: 'id|name',
      complete: 'template',
      resume: true,
      help: 'Default template for records without one: an id (a ULID), or a name from .esign.json',
    },
    {
      flag: '--data',
      kind: 'paths',
      value: 'file',
      resume: true,
      help: 'Default merge data (JSON object); repeatable',
    },
    {
      flag: '--set',
      kind: 'list',
      value: 'key=value',
      complete: 'field',
      resume: true,
      help: 'Default merge field; repeatable',
    },
    { flag: '--expires-in-days', kind: 'text', value: 'n', resume: true, help: 'Default days until expiry' },
    {
      flag: '--concurrency',
      kind: 'int',
      value: 'n',
      range: [1, 64],
      shownDefault: String(DEFAULT_CONCURRENCY),
      resume: true,
      help: 'Requests in flight at once, 1-64; else defaults.concurrency of .esign.json',
    },
    {
      flag: '--max-retries',
      kind: 'int',
      value: 'n',
      range: [0, 20],
      default: 5,
      resume: true,
      help: 'Retries per record of a 503 or a request that never left',
    },
    {
      flag: '--rate',
      kind: 'rate',
      value: 'n/unit',
      resume: true,
      help: 'Your own ceiling on the send rate, like 100/min, 5/s or 20/30s; else defaults.rate of .esign.json',
    },
    {
      flag: '--max-rate-wait',
      kind: 'duration',
      value: 'duration',
      default: DEFAULT_MAX_RATE_WAIT_MS,
      resume: true,
      help: "How long one record may wait in all (its turn, the API's pauses, backoffs) before it fails, like 90s or 10m",
    },
    {
      flag: '--output',
      short: '-o',
      kind: 'path',
      value: 'file',
      resume: true,
      help: 'Write results (JSON Lines) to this file instead of stdout',
    },
    { flag: '--resume', kind: 'boolean', help: 'Skip records already created in --output' },
    {
      flag: '--retry-unknown',
      kind: 'boolean',
      help: 'With --resume, send again records whose outcome was unknown',
    },
    {
      flag: '--dry-run',
      kind: 'boolean',
      help: 'Check every record and report what would be sent, and duplicates; send nothing',
    },
    {
      flag: '--allow-duplicates',
      kind: 'boolean',
      resume: true,
      help: 'Do not warn about records that would create the same envelope twice',
    },
    {
      flag: '--keep-going',
      kind: 'boolean',
      resume: true,
      help: 'Send every record, even when the first 20 answered all failed with the same error (by default the batch stops there)',
    },
    {
      flag: '--yes',
      short: '-y',
      kind: 'boolean',
      help: 'At a terminal, send duplicate records without asking',
    },
    {
      flag: '--no-input',
      kind: 'boolean',
      env: 'ESIGN_NO_INPUT',
      help: 'Never ask: warn about duplicates and send them, as off a terminal',
    },
    {
      flag: '--summary-emails',
      kind: 'boolean',
      help: "Name each failed record's signatory email in the GitHub Actions job summary, and each held-back unknown record's in the resume list on stderr (left out by default: summaries of public repositories are public)",
    },
  ],
  exitCodes: [0, 2, 3, 4, 5, 6, 7, 8, 9, 130],
  related: ['environment', 'exit-codes'],
  examples: [
    'esign envelope batch hires.csv --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --output results.jsonl',
    '# The run broke off? Run it again: created records are not sent twice',
    'esign envelope batch hires.csv --template 01JD… --output results.jsonl --resume',
    'generate-records | esign envelope batch - --format jsonl > results.jsonl',
    '# Check a list before sending: counts and duplicates, nothing sent',
    'esign envelope batch hires.csv --template 01JD… --dry-run',
    '# A plan limit of 100 creates a minute',
    'esign envelope batch hires.csv --template 01JD… --output results.jsonl --rate 100/min',
  ],
  load: (): Loaded => import('./batch.js'),
} as const satisfies CommandDecl;

export const envelope = {
  name: 'envelope',
  summary: 'Create envelopes, one at a time or in batches',
  exitCodes: [0, 2],
  examples: [
    'esign envelope create --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --name "Ada Lovelace" --email ada@example.com',
    'esign envelope batch hires.csv --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --output results.jsonl',
  ],
  subcommands: [create, batch],
} as const satisfies CommandDecl;

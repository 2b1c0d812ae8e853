// The declarations of the project-file commands: templates, templates set, init.
import type { CommandDecl, Loaded } from '../command-types.js';

export const templatesSet = {
  name: 'set',
  summary:
    'Add or update one template of .esign.json (its id and fields); the rest of the file stays as it was',
  args: [
    { name: 'name', required: true, kind: 'text', help: 'Template name (letters, digits and . _ -)' },
    {
      name: 'id',
      required: false,
      kind: 'text',
      help: 'Template id (a ULID); may be left out to keep the one there is',
    },
  ],
  flags: [
    { flag: '--field', kind: 'list', value: 'name', help: 'Declare an optional field; repeatable' },
    { flag: '--required', kind: 'list', value: 'name', help: 'Declare a required field; repeatable' },
    { flag: '--description', kind: 'list', value: 'field=text', help: "A field's description; repeatable" },
    { flag: '--example', kind: 'list', value: 'field=value', help: "A field's example value; repeatable" },
    { flag: '--remove-field', kind: 'list', value: 'name', help: 'Remove a declared field; repeatable' },
    {
      flag: '--in-profile',
      kind: 'text',
      value: 'profile',
      help: 'Write under profiles.<profile>.templates instead of templates',
    },
    { flag: '--json', kind: 'boolean', help: 'Print the entry as one JSON object' },
  ],
  unusedGlobals: ['--timeout'],
  exitCodes: [0, 2],
  examples: [
    'esign templates set offer-letter 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --required company --required start_date --field salary',
    'esign templates set offer-letter --description company="Legal name of the employer" --example start_date=2026-12-01',
    'esign templates set offer-letter 01JF2K8W0R3M7Q5N9T1V4XBYCD --in-profile production',
  ],
  load: (): Loaded => import('./templates-set.js'),
} as const satisfies CommandDecl;

export const templates = {
  name: 'templates',
  summary: 'List the template names in force (from .esign.json), their ids and fields',
  flags: [{ flag: '--json', kind: 'boolean', help: 'Print one JSON object' }],
  unusedGlobals: ['--timeout'],
  exitCodes: [0, 2],
  examples: [
    'esign templates',
    'esign templates --profile production',
    'esign templates --json | jq -r \'.templates["offer-letter"]\'',
    "esign templates --json | jq '.entries[] | {name, required: [.fields[] | select(.required) | .name]}'",
    '# Names come from .esign.json in this folder or the nearest parent:',
    '#   {"templates": {"offer-letter": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E"},',
    '#    "profiles": {"sandbox": {"templates": {"offer-letter": "01JD7Y…"}}}}',
    '# or with fields, checked before anything is sent:',
    '#   {"templates": {"offer-letter": {"id": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E",',
    '#      "fields": {"company": {"required": true}, "salary": {}}}}}',
    'esign init             # writes .esign.json from the sandbox, fields included',
    'esign templates set offer-letter --required start_date',
    'esign envelope create --template offer-letter --name "Ada Lovelace" --email ada@example.com',
  ],
  subcommands: [templatesSet],
  load: (): Loaded => import('./templates.js'),
} as const satisfies CommandDecl;

export const init = {
  name: 'init',
  summary: "Write .esign.json here naming the sandbox's templates, with their fields",
  flags: [
    { flag: '--force', kind: 'boolean', help: 'Replace an existing .esign.json' },
    { flag: '--json', kind: 'boolean', help: 'Print one JSON object' },
  ],
  exitCodes: [0, 2, 3, 4, 5, 6, 7],
  examples: [
    'esign init --profile sandbox',
    '# Reads the templates and merge tags of the sandbox the profile points at',
    '# (the API itself cannot list templates; name others with esign templates set).',
  ],
  load: (): Loaded => import('./init.js'),
} as const satisfies CommandDecl;

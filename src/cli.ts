// The command tree: names, flags, help and examples. Each action lazy-imports its command module, so
// `esign --help` loads commander and nothing else. One step serves every command: commander's result
// (flags merged with the global ones, positional arguments by their declared names) goes through the
// module's zod options schema, and only typed, checked options reach `run`.
import { Argument, Command, Help, Option } from 'commander';
import type * as z from 'zod/mini';
import { CI_OUTPUT_MODES } from './ci/output-modes.js';
import type { CommandModule, CommandTree, CompleteWith } from './command-types.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { describeIssue } from './text/issues.js';
import { unknownCommandError, unknownOptionError } from './unknown-option.js';

/** What the entry point learns while a command line is parsed and run. */
export interface ProgramHooks {
  /** The command's options passed its schema: main learns --json/--verbose here, and hands back the context to run with. */
  onOptions(options: { json?: boolean; verbose?: boolean }, command: { streamsStderr: boolean }): Context;
  onResult(code: number): void;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** How each flag's and argument's value completes, beside commander's own records. */
const completions = new WeakMap<object, CompleteWith>();

function option(flags: string, description: string, complete?: CompleteWith): Option {
  const created = new Option(flags, description);
  if (complete) completions.set(created, complete);
  if (Array.isArray(complete)) created.choices(complete as string[]);
  return created;
}

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') || line.startsWith(' ') || line === '' ? `  ${line}` : `  $ ${line}`)).join('\n')}\n`;
}

/** What loads each command's module: its options schema is what the help's defaults and choices must match. */
const moduleLoaders = new WeakMap<Command, () => Promise<CommandModule<never>>>();

type LoadingAction = ((...params: unknown[]) => Promise<void>) & {
  load?: () => Promise<CommandModule<never>>;
};

/** Commander's Command, remembering which module each command's action loads. */
class EsignCommand extends Command {
  override createCommand(name?: string): EsignCommand {
    return new EsignCommand(name);
  }

  // biome-ignore lint/suspicious/noExplicitAny: commander's own signature for an action's parameters
  override action(handler: (...params: any[]) => void | Promise<void>): this {
    const { load } = handler as LoadingAction;
    if (load) moduleLoaders.set(this, load);
    return super.action(handler);
  }

  /** Commander's hook for an option this command lacks: said with the commands that have it. */
  unknownOption(flag: string): never {
    throw unknownOptionError(this, flag);
  }

  /** Commander's hook for a subcommand that does not exist: said as every level says it. */
  unknownCommand(): never {
    throw unknownCommandError(this, String(this.args[0] ?? ''));
  }
}

/** The module a command runs (undefined for `help` and the groups), for the help-matches-schema test. */
export function loadCommandModule(command: Command): Promise<CommandModule<never>> | undefined {
  return moduleLoaders.get(command)?.();
}

/** Commands whose stderr is a live log (the sandbox): under --json it is not held back for the error object. */
const STREAMS_STDERR = new Set(['sandbox']);

/**
 * The global flags that mean nothing to a command (by its path below `esign`): its help does not
 * list them, and completion does not offer them. Every other command takes them all. (--verbose
 * and --ci-output mean something to every command: a failure's trace and its annotation.)
 */
const UNUSED_GLOBALS: Readonly<Record<string, readonly string[]>> = {
  // No profile, no API.
  sandbox: ['--profile', '--base-url', '--timeout'],
  completion: ['--profile', '--base-url', '--timeout'],
  help: ['--profile', '--base-url', '--timeout'],
  // A stored profile's settings: nothing is sent.
  logout: ['--base-url', '--timeout'],
  login: ['--timeout'],
  'config get': ['--base-url', '--timeout'],
  'config set': ['--base-url', '--timeout'],
  'config unset': ['--base-url', '--timeout'],
  'config list': ['--base-url', '--timeout'],
  'profile list': ['--base-url', '--timeout'],
  'profile use': ['--base-url', '--timeout'],
  'profile delete': ['--base-url', '--timeout'],
  // The project file alone.
  templates: ['--timeout'],
  'templates set': ['--timeout'],
};

/** The global flags that mean nothing to `command`. */
function unusedGlobals(command: Command): readonly string[] {
  const path: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) path.unshift(at.name());
  return UNUSED_GLOBALS[path.join(' ')] ?? [];
}

/** "--expires-in-days" for the option key "expiresInDays", "file" for a positional argument. */
function flagName(command: Command, key: string): string {
  for (let at: Command | null = command; at; at = at.parent) {
    const found = at.options.find((o) => o.attributeName() === key);
    if (found) return found.long ?? found.short ?? key;
  }
  // A positional argument by its name, as a word of the sentence ("shell must be one of …").
  return command.registeredArguments.some((a) => a.name() === key) ? key : `--${key}`;
}

function describeValue(value: unknown): string {
  return value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
}

/** Runs commander's result through the module's schema; a failure is a usage error naming the flag. */
export function parseOptions<T>(schema: z.ZodMiniType<T>, command: Command): T {
  const raw: Record<string, unknown> = { ...command.optsWithGlobals() };
  command.registeredArguments.forEach((argument, index) => {
    if (command.processedArgs[index] !== undefined) raw[argument.name()] = command.processedArgs[index];
  });
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    return `${flagName(command, key)} ${describeIssue(issue)}${describeValue(raw[key])}`;
  });
  throw new UsageError(`${problems[0]}.`, {
    details: problems.slice(1),
    hint: `Run \`${commandPath(command)} --help\` to see its flags and examples.`,
  });
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The tree completion and `esign help` work from. */
export function describeTree(command: Command): CommandTree {
  const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;
  return {
    name: command.name(),
    aliases: command.aliases(),
    description: command.description(),
    options: command.options
      .filter((o) => !o.hidden)
      .map((o) => ({
        flags: [o.long, o.short].filter((f): f is string => Boolean(f)),
        takesValue: o.required || o.optional,
        ...(completions.has(o) ? { complete: completions.get(o) as CompleteWith } : {}),
      })),
    args: command.registeredArguments.map((a) => ({
      name: a.name(),
      ...(completions.has(a) ? { complete: completions.get(a) as CompleteWith } : {}),
    })),
    unusedGlobals: [...unusedGlobals(command)],
    subcommands: command.commands.filter((c) => !hidden(c)).map(describeTree),
  };
}

/** A command that only groups others: bare, it shows its help on stdout (exit 0), as `esign` does. */
function group(parent: Command, name: string, description: string, lines: string[]): Command {
  return parent
    .command(name)
    .description(description)
    .usage('<command> [flags]')
    .argument('[command]')
    .addHelpText('after', examples(lines))
    .action(async (typed: string | undefined, _options: unknown, command: Command) => {
      if (typed === undefined) {
        command.outputHelp();
        return;
      }
      throw unknownCommandError(command, typed);
    });
}

export function buildProgram(ctx: Context, hooks: ProgramHooks): Command {
  let root: Command;
  const action = <Options extends { json?: boolean; verbose?: boolean }>(
    load: () => Promise<CommandModule<Options>>,
  ): LoadingAction => {
    const handler: LoadingAction = async (...params: unknown[]) => {
      const command = params[params.length - 1] as Command;
      const module = await load();
      const options = parseOptions(module.options, command);
      const runCtx = hooks.onOptions(options, { streamsStderr: STREAMS_STDERR.has(command.name()) });
      hooks.onResult(await module.run(options, runCtx, { tree: () => describeTree(root) }));
    };
    handler.load = load as unknown as () => Promise<CommandModule<never>>;
    return handler;
  };

  const program = new EsignCommand('esign')
    .description('Create and send electronic-signature envelopes from the command line.')
    .usage('<command> [flags]')
    .version(ctx.version, '-v, --version', 'Print the version')
    .helpOption('-h, --help', 'Show help for a command')
    .addOption(option('--profile <name>', 'Profile to use (env ESIGN_PROFILE; default "default")', 'profile'))
    .option('--base-url <url>', 'API base URL, including /api/v1 (env ESIGN_BASE_URL)')
    .option('--timeout <seconds>', 'Request timeout in seconds (env ESIGN_TIMEOUT; default 30)')
    .option('--verbose', 'Show requests, timings and where each setting came from (never the token)')
    .addOption(
      option(
        '--ci-output <mode>',
        'GitHub Actions outputs, masks and annotations (env ESIGN_CI; default auto: on when GITHUB_ACTIONS=true)',
        [...CI_OUTPUT_MODES],
      ),
    )
    .configureHelp({
      showGlobalOptions: true,
      // Only the global flags that mean something to the command (UNUSED_GLOBALS).
      visibleGlobalOptions(this: Help, command: Command) {
        const unused = unusedGlobals(command);
        return (
          Help.prototype.visibleGlobalOptions
            .call(this, command)
            // --version is read only at the top (`esign --version`).
            .filter((o) => !unused.includes(o.long ?? '') && o.long !== '--version')
        );
      },
    })
    .showSuggestionAfterError(true)
    .helpCommand(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      outputError: () => {}, // main reports parse errors itself (plain or --json)
    })
    .addHelpText(
      'after',
      examples([
        'esign login',
        'esign envelope create --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --name "Ada Lovelace" --email ada@example.com',
        'esign sandbox        # a local API to try everything with no account',
        'esign help environment   # every variable, and which setting wins',
        'esign help exit-codes    # what each exit code means',
        'esign help accessibility # plain output for screen readers (ACCESSIBLE=1)',
      ]),
    );
  root = program;

  program
    .command('help')
    .description('Show help for a command, or a topic: environment, exit-codes, accessibility')
    .argument('[topic...]', 'A command (e.g. envelope create) or a topic')
    .addHelpText(
      'after',
      examples([
        'esign help envelope create',
        'esign help environment',
        'esign help exit-codes',
        'esign help accessibility',
      ]),
    )
    .action(async (topic: string[]) => {
      hooks.onResult(await showHelp(program, topic, ctx));
    });

  program
    .command('login')
    .description(
      'Store an API token, or the command that prints it (and optionally the base URL), in a profile',
    )
    .option('--with-token', 'Read the token from standard input')
    .option(
      '--token-command <command>',
      'Store a command that prints the token (a password manager, a keychain) instead of the token; it runs when a command needs the token',
    )
    .addOption(new Option('--token [value]').hideHelp())
    .addHelpText(
      'after',
      examples([
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
      ]),
    )
    .action(action(() => import('./commands/login.js')));

  program
    .command('logout')
    .description("Remove a profile's stored token")
    .addHelpText('after', examples(['esign logout', 'esign logout --profile staging']))
    .action(action(() => import('./commands/logout.js')));

  program
    .command('status')
    .alias('whoami')
    .description('Show the active profile, base URL, where the token comes from and the config file')
    .option('--json', 'Print one JSON object')
    .addHelpText('after', examples(['esign status', 'esign status --json | jq -r .base_url.value']))
    .action(action(() => import('./commands/status.js')));

  const templates = program
    .command('templates')
    .description('List the template names in force (from .esign.json), their ids and fields')
    .option('--json', 'Print one JSON object')
    .addHelpText(
      'after',
      examples([
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
      ]),
    )
    .action(action(() => import('./commands/templates.js')));
  templates
    .command('set')
    .description(
      'Add or update one template of .esign.json (its id and fields); the rest of the file stays as it was',
    )
    .argument('<name>', 'Template name (letters, digits and . _ -)')
    .argument('[id]', 'Template id (a ULID); may be left out to keep the one there is')
    .option('--field <name>', 'Declare an optional field; repeatable', collect)
    .option('--required <name>', 'Declare a required field; repeatable', collect)
    .option('--description <field=text>', "A field's description; repeatable", collect)
    .option('--example <field=value>', "A field's example value; repeatable", collect)
    .option('--remove-field <name>', 'Remove a declared field; repeatable', collect)
    .option('--in-profile <profile>', 'Write under profiles.<profile>.templates instead of templates')
    .option('--json', 'Print the entry as one JSON object')
    .addHelpText(
      'after',
      examples([
        'esign templates set offer-letter 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --required company --required start_date --field salary',
        'esign templates set offer-letter --description company="Legal name of the employer" --example start_date=2026-12-01',
        'esign templates set offer-letter 01JF2K8W0R3M7Q5N9T1V4XBYCD --in-profile production',
      ]),
    )
    .action(action(() => import('./commands/templates-set.js')));

  program
    .command('init')
    .description("Write .esign.json here naming the sandbox's templates, with their fields")
    .option('--force', 'Replace an existing .esign.json')
    .option('--json', 'Print one JSON object')
    .addHelpText(
      'after',
      examples([
        'esign init --profile sandbox',
        '# Reads the templates and merge tags of the sandbox the profile points at',
        '# (the API itself cannot list templates; name others with esign templates set).',
      ]),
    )
    .action(action(() => import('./commands/init.js')));

  const config = group(
    program,
    'config',
    "Read and change a profile's settings (base_url) and your preferences (accessible, token_age_reminder)",
    [
      'esign config set base_url https://esign.example.com/api/v1',
      'esign config get base_url --profile staging',
      'esign config set accessible true        # plain output for screen readers, for every profile',
      'esign config set token_age_reminder false   # no reminder to rotate a token stored 90+ days ago',
      'esign config list --json',
    ],
  );
  const configAction = (name: 'get' | 'set' | 'unset' | 'list') =>
    action(() => import('./commands/config.js').then((module) => module[name]));
  const settingKeys = ['base_url', 'accessible', 'token_age_reminder'] as const;
  const settingKeyHelp = 'Setting name (base_url; or accessible, token_age_reminder: for every profile)';
  config
    .command('get')
    .description('Print a setting (exit 1 when it is not set)')
    .addArgument(argument('<key>', settingKeyHelp, settingKeys))
    .addHelpText(
      'after',
      examples([
        'esign config get base_url',
        'URL=$(esign config get base_url --profile staging) || echo "not set"',
      ]),
    )
    .action(configAction('get'));
  config
    .command('set')
    .description('Store a setting in the profile (a preference: for every profile)')
    .addArgument(argument('<key>', settingKeyHelp, settingKeys))
    .argument('<value>', 'New value (a URL for base_url; true or false for the others)')
    .addHelpText(
      'after',
      examples([
        'esign config set base_url https://esign.example.com/api/v1',
        'esign config set base_url http://127.0.0.1:4010/api/v1 --profile sandbox',
      ]),
    )
    .action(configAction('set'));
  config
    .command('unset')
    .description('Remove a setting from the profile')
    .addArgument(argument('<key>', settingKeyHelp, settingKeys))
    .addHelpText('after', examples(['esign config unset base_url --profile staging']))
    .action(configAction('unset'));
  config
    .command('list')
    .description("List the profile's settings")
    .option('--json', 'Print one JSON object')
    .addHelpText('after', examples(['esign config list', 'esign config list --json | jq -r .profiles[]']))
    .action(configAction('list'));

  const profile = group(
    program,
    'profile',
    'List the stored profiles, choose the default one, or delete one',
    ['esign profile list', 'esign profile use sandbox', 'esign profile delete staging'],
  );
  const profileAction = (name: 'list' | 'remove' | 'use') =>
    action(() => import('./commands/profile.js').then((module) => module[name]));
  profile
    .command('list')
    .description('List the stored profiles, their base URLs and tokens (masked); * marks the active one')
    .option('--json', 'Print one JSON object')
    .addHelpText(
      'after',
      examples(['esign profile list', "esign profile list --json | jq -r '.profiles[].name'"]),
    )
    .action(profileAction('list'));
  profile
    .command('use')
    .description(
      'Make a stored profile the default (below --profile, ESIGN_PROFILE and the project file); "default" goes back',
    )
    .addArgument(argument('<name>', 'The profile to use from now on', 'profile'))
    .addHelpText(
      'after',
      examples([
        'esign profile use sandbox',
        'esign status            # Profile  sandbox (the default chosen with `esign profile use`, …)',
        'esign profile use default',
      ]),
    )
    .action(profileAction('use'));
  profile
    .command('delete')
    .description('Delete a stored profile with its base URL and token')
    .addArgument(argument('<name>', 'The profile to delete', 'profile'))
    .addHelpText(
      'after',
      examples([
        'esign profile delete staging',
        '# The token stays valid on the server until you revoke it in the dashboard.',
      ]),
    )
    .action(profileAction('remove'));

  const envelope = group(program, 'envelope', 'Create envelopes, one at a time or in batches', [
    'esign envelope create --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --name "Ada Lovelace" --email ada@example.com',
    'esign envelope batch hires.csv --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --output results.jsonl',
  ]);
  envelope
    .command('create')
    .description('Create an envelope from a template and get its signing URL')
    .addOption(
      option(
        '--template <id|name>',
        'Template id (a ULID), or a name from .esign.json; required',
        'template',
      ),
    )
    .addOption(
      option(
        '--data <file>',
        'JSON object of merge data; - reads stdin; repeatable, later files win',
        'file',
      ).argParser(collect),
    )
    .addOption(
      option('--set <key=value>', 'One merge field; repeatable; wins over --data', 'field').argParser(
        collect,
      ),
    )
    .option('--name <full name>', "Signatory's full name; required")
    .option('--email <address>', "Signatory's email; required")
    .option('--phone <number>', "Signatory's phone number")
    .option('--expires-in-days <n>', 'Days until the envelope expires (the API default is 30)')
    .option('--dry-run', 'Print the request body and exit; nothing is sent, no token needed')
    .addOption(new Option('--json', 'Print the envelope as one JSON object').conflicts('quiet'))
    .option('-q, --quiet', 'Print only the signing URL')
    .option('--open', 'Open the signing URL in the browser ($BROWSER, else the system opener)')
    .option('--qr', 'Draw the signing URL as a QR code on stderr, to sign on a phone')
    .option('-y, --yes', 'At a terminal, send without the confirmation that follows the questions')
    .option('--no-input', 'Never ask: fail on what is missing, as off a terminal (or ESIGN_NO_INPUT=1)')
    .addHelpText(
      'after',
      examples([
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
      ]),
    )
    .action(action(() => import('./commands/envelope/create.js')));

  envelope
    .command('batch')
    .description('Create one envelope per record of a CSV or JSON Lines file')
    .addArgument(argument('<file>', 'A .csv or .jsonl file; - reads stdin (with --format)', 'file'))
    .addOption(option('--format <format>', 'Input format (needed for stdin)', ['jsonl', 'csv']))
    .addOption(
      option(
        '--template <id|name>',
        'Default template for records without one: an id (a ULID), or a name from .esign.json',
        'template',
      ),
    )
    .addOption(
      option('--data <file>', 'Default merge data (JSON object); repeatable', 'file').argParser(collect),
    )
    .addOption(option('--set <key=value>', 'Default merge field; repeatable', 'field').argParser(collect))
    .option('--expires-in-days <n>', 'Default days until expiry')
    .option(
      '--concurrency <n>',
      'Requests in flight at once, 1-64; else defaults.concurrency of .esign.json (default: 4)',
    )
    .addOption(
      new Option('--max-retries <n>', 'Retries per record of a 503 or a request that never left').default(5),
    )
    .option(
      '--rate <n/unit>',
      'Your own ceiling on the send rate, like 100/min, 5/s or 20/30s; else defaults.rate of .esign.json',
    )
    .addOption(
      new Option(
        '--max-rate-wait <duration>',
        "How long one record may wait in all (its turn, the API's pauses, backoffs) before it fails, like 90s or 10m",
      ).default('15m'),
    )
    .addOption(
      option('-o, --output <file>', 'Write results (JSON Lines) to this file instead of stdout', 'file'),
    )
    .option('--resume', 'Skip records already created in --output')
    .option('--retry-unknown', 'With --resume, send again records whose outcome was unknown')
    .option('--dry-run', 'Check every record and report what would be sent, and duplicates; send nothing')
    .option('--allow-duplicates', 'Do not warn about records that would create the same envelope twice')
    .option(
      '--keep-going',
      'Send every record, even when the first 20 answered all failed with the same error (by default the batch stops there)',
    )
    .option('-y, --yes', 'At a terminal, send duplicate records without asking')
    .option(
      '--no-input',
      'Never ask: warn about duplicates and send them, as off a terminal (or ESIGN_NO_INPUT=1)',
    )
    .option(
      '--summary-emails',
      "GitHub Actions: name each failed record's signatory email in the job summary (left out by default: summaries of public repositories are public)",
    )
    .addHelpText(
      'after',
      examples([
        'esign envelope batch hires.csv --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --output results.jsonl',
        '# The run broke off? Run it again: created records are not sent twice',
        'esign envelope batch hires.csv --template 01JD… --output results.jsonl --resume',
        'generate-records | esign envelope batch - --format jsonl > results.jsonl',
        '# Check a list before sending: counts and duplicates, nothing sent',
        'esign envelope batch hires.csv --template 01JD… --dry-run',
        '# A plan limit of 100 creates a minute',
        'esign envelope batch hires.csv --template 01JD… --output results.jsonl --rate 100/min',
      ]),
    )
    .action(action(() => import('./commands/envelope/batch.js')));

  program
    .command('sandbox')
    .description('Run a local implementation of the API, for trying esign and rehearsing scripts')
    .addOption(new Option('--port <n>', 'Port to listen on (0 picks a free one)').default(4010))
    .option('--host <addr>', 'Address to listen on', '127.0.0.1')
    .addOption(
      option(
        '--seed <file>',
        'JSON file of organisations, tokens and templates (replaces the defaults)',
        'file',
      ),
    )
    .addOption(
      option('--state <file>', 'Keep envelopes and revocations in this file across restarts', 'file'),
    )
    .option('--json', 'Print the start-up details as one JSON object on stdout')
    .option('--latency <ms>', 'Delay every answer by this many milliseconds')
    .option('--fail-rate <0..1>', 'Share of create requests answered 503 with Retry-After')
    .option(
      '--rate-limit <n[/window]>',
      'Create requests allowed per token and window (50, 50/s, 100/min, 50/5s, 0.5/s) before 429 with Retry-After',
    )
    .addOption(
      option('--rate-limit-headers <style>', 'Rate-limit headers on API answers', [
        'x-ratelimit',
        'ietf',
        'structured',
        'none',
      ]).default('x-ratelimit'),
    )
    .option('--drop-rate <0..1>', 'Share of creates whose connection is closed after the envelope was made')
    .option('--seed-random <n>', 'Seed for the random failures, to make them reproducible')
    .addOption(
      new Option('--keep-requests <n>', 'Requests kept for GET /_sandbox/requests (0 keeps none)').default(
        10000,
      ),
    )
    .addOption(
      new Option(
        '--envelope-budget <MiB>',
        'Memory the envelopes may take; past it a create is answered 507 and nothing is made',
      ).default(256),
    )
    .addHelpText(
      'after',
      examples([
        'esign sandbox',
        'esign sandbox --port 0 --json > sandbox.json &',
        'esign sandbox --state sandbox-state.json --fail-rate 0.1 --seed-random 42',
        'esign sandbox --rate-limit 100/min --rate-limit-headers ietf',
      ]),
    )
    .action(action(() => import('./commands/sandbox.js')));

  const mcp = program
    .command('mcp')
    .description('Serve esign to assistants: a Model Context Protocol server on stdin and stdout')
    .addOption(
      option(
        '--confirm <when>',
        'Whether a person confirms each envelope through the client before it is sent: ask (default; with a client that cannot ask, nothing is sent) or never (env ESIGN_MCP_CONFIRM)',
        ['ask', 'never'],
      ),
    )
    .option(
      '--allow-domain <domain>',
      'Send only to signatories at this email domain (*.example.com: and its subdomains); repeatable (env ESIGN_MCP_ALLOW_DOMAINS, comma-separated)',
      collect,
    )
    .option(
      '--read-only',
      'List only the tools that send nothing (validate_envelope, list_templates, get_status) (env ESIGN_MCP_READ_ONLY=true)',
    )
    .option(
      '--tools <names>',
      'List only these tools, comma-separated: create_envelope, validate_envelope, list_templates, get_status',
    )
    .addHelpText(
      'after',
      examples([
        '# Started by an MCP client, not by hand; register it with one (never the token: it reads the profile):',
        'esign mcp install claude-code --profile production --allow-domain example.com',
        'esign mcp install claude-desktop --print   # show what it would write',
        '# An assistant that may check envelopes but never send one:',
        'esign mcp --read-only',
        '# An agent trusted to send without a person confirming each envelope:',
        'esign mcp --confirm never --allow-domain example.com',
        '# Rehearse against the sandbox (ESIGN_TOKEN from `esign sandbox`):',
        'ESIGN_BASE_URL=http://127.0.0.1:4010/api/v1 esign mcp',
        '',
        '# It serves the tools create_envelope, validate_envelope, list_templates and get_status, the',
        '# templates in force as resources (esign://templates, esign://templates/{name}), and the',
        '# prompt send_envelope. create_envelope shows the person what will be sent and sends only on',
        '# their yes; with a client that cannot ask (no elicitation), it sends nothing unless the',
        '# server was started with --confirm never.',
      ]),
    )
    .action(action(() => import('./commands/mcp.js')));
  const clients = ['claude-code', 'claude-desktop', 'cursor', 'vscode'] as const;
  mcp
    .command('install')
    .description("Register `esign mcp` with an MCP client, in the client's own config file")
    .addArgument(argument('<client>', 'The client: claude-code, claude-desktop, cursor or vscode', clients))
    .addOption(
      option(
        '--scope <scope>',
        "Which config: user (the client's config for you; default) or project (this folder's)",
        ['user', 'project'],
      ),
    )
    .option('--name <name>', 'The entry\'s name in the client (default "esign")')
    .addOption(
      option('--confirm <when>', 'Start the server with --confirm never (ask is the default)', [
        'ask',
        'never',
      ]),
    )
    .option('--allow-domain <domain>', 'Start the server with --allow-domain; repeatable', collect)
    .option('--read-only', 'Start the server with --read-only')
    .option('--tools <names>', 'Start the server with --tools')
    .option(
      '--command <path>',
      'The command the client runs (default: the esign running now, started the way it was installed: by its full path, or npx -y esign@<version>)',
    )
    .addOption(
      option('--config-file <file>', "Edit this file (the client's layout) instead of the usual one", 'file'),
    )
    .option(
      '--no-check',
      'Write the entry without first starting it to see it answer as an MCP server (a command only the client can run)',
    )
    .option('--print', 'Show the entry and the file it would be written to; change nothing')
    .option('--json', 'Print one JSON object')
    .addHelpText(
      'after',
      examples([
        'esign mcp install claude-code',
        'esign mcp install claude-desktop --profile production --allow-domain example.com',
        'esign mcp install vscode --scope project --read-only',
        'esign mcp install cursor --print',
        "# The token is never written: the server reads the profile's stored token (esign login),",
        '# or ESIGN_TOKEN from the environment the client starts it in.',
      ]),
    )
    .action(action(() => import('./commands/mcp-install.js').then((module) => module.install)));
  mcp
    .command('uninstall')
    .description("Remove the `esign mcp` entry from an MCP client's config file")
    .addArgument(argument('<client>', 'The client: claude-code, claude-desktop, cursor or vscode', clients))
    .addOption(option('--scope <scope>', 'Which config: user (default) or project', ['user', 'project']))
    .option('--name <name>', 'The entry\'s name (default "esign")')
    .addOption(option('--config-file <file>', 'Edit this file instead of the usual one', 'file'))
    .option('--print', 'Show what would be removed; change nothing')
    .option('--json', 'Print one JSON object')
    .addHelpText(
      'after',
      examples(['esign mcp uninstall claude-code', 'esign mcp uninstall vscode --scope project']),
    )
    .action(action(() => import('./commands/mcp-install.js').then((module) => module.uninstall)));

  program
    .command('completion')
    .description('Print a shell completion script')
    .addArgument(argument('<shell>', 'The shell: bash, zsh or fish', ['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      examples([
        '# bash (needs the bash-completion package: apt install bash-completion, brew install bash-completion@2)',
        'mkdir -p ~/.local/share/bash-completion/completions',
        'esign completion bash > ~/.local/share/bash-completion/completions/esign',
        '# zsh',
        'mkdir -p ~/.zfunc && esign completion zsh > ~/.zfunc/_esign',
        '# then in ~/.zshrc, before compinit: fpath+=(~/.zfunc)',
        '# fish',
        'mkdir -p ~/.config/fish/completions && esign completion fish > ~/.config/fish/completions/esign.fish',
      ]),
    )
    .action(action(() => import('./commands/completion.js')));

  return program;
}

function argument(name: string, description: string, complete: CompleteWith): Argument {
  // Completion offers the known values; the command's schema checks them, with its own message.
  const created = new Argument(name, description);
  completions.set(created, complete);
  return created;
}

/** `esign help [command…|topic]`: a command's help or a topic, on stdout. */
async function showHelp(program: Command, words: string[], ctx: Context): Promise<number> {
  const { HELP_TOPICS } = await import('./help-topics.js');
  const [first = ''] = words;
  const topic = words.length === 1 && Object.hasOwn(HELP_TOPICS, first) ? HELP_TOPICS[first] : undefined;
  if (topic) {
    ctx.stdout.write(topic);
    return 0;
  }
  let command = program;
  for (const word of words) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const { didYouMean } = await import('./text/suggest.js');
      const known = [
        ...command.commands.map((c) => c.name()),
        ...(command === program ? Object.keys(HELP_TOPICS) : []),
      ];
      throw new UsageError(
        `No help for '${words.join(' ')}': unknown command or topic '${word}'.${didYouMean(word, known)}`,
        {
          hint: `Commands: ${command.commands.map((c) => c.name()).join(', ')}${command === program ? `; topics: ${Object.keys(HELP_TOPICS).join(', ')}` : ''}.`,
        },
      );
    }
    command = next;
  }
  command.outputHelp();
  return 0;
}

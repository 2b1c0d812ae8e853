// The command tree: names, flags, help and examples. Each action lazy-imports its command module, so
// `esign --help` loads commander and nothing else.
import { Command, Option } from 'commander';
import type { Context } from './context.js';

/** What every command module exports: run with the parsed flags and positional arguments. */
export interface CommandModule {
  run(input: CommandInput, ctx: Context): Promise<number>;
}

export interface CommandInput {
  /** Flags of the command merged with the global ones (--profile, --base-url, --timeout, --verbose). */
  options: Record<string, unknown>;
  args: string[];
  /** The commander node, for commands that describe the tree (completion). */
  command: Command;
}

type Loader = () => Promise<CommandModule>;

const collect = (value: string, previous: string[] = []) => [...previous, value];

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') || line.startsWith(' ') || line === '' ? `  ${line}` : `  $ ${line}`)).join('\n')}\n`;
}

export function buildProgram(ctx: Context, onResult: (code: number) => void): Command {
  const action =
    (load: Loader) =>
    async (...params: unknown[]) => {
      const command = params[params.length - 1] as Command;
      const module = await load();
      onResult(await module.run({ options: command.optsWithGlobals(), args: command.args, command }, ctx));
    };

  const program = new Command('esign')
    .description('Create and send electronic-signature envelopes from the command line.')
    .version(ctx.version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'profile to use (env ESIGN_PROFILE; default "default")')
    .option('--base-url <url>', 'API base URL, including /api/v1 (env ESIGN_BASE_URL)')
    .option('--timeout <seconds>', 'request timeout in seconds (env ESIGN_TIMEOUT; default 30)')
    .option('--verbose', 'show requests, timings and where each setting came from (never the token)')
    .configureHelp({ showGlobalOptions: true })
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
        '',
        '# Exit codes: 0 ok, 2 usage/input, 3 not authenticated, 4 forbidden, 5 rejected,',
        '# 6 network, 7 server, 8 batch partly failed, 130 interrupted.',
      ]),
    );

  program
    .command('login')
    .description('Store an API token (and optionally the base URL) in a profile')
    .option('--with-token', 'read the token from standard input')
    .addHelpText(
      'after',
      examples([
        'esign login --base-url https://esign.example.com/api/v1',
        '# In CI, from a secret:',
        'printf %s "$ESIGN_TOKEN_SECRET" | esign login --with-token --profile ci',
        '',
        '# Tokens are made in the dashboard: Settings → API Tokens → Create New Token.',
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
    .option('--json', 'print one JSON object')
    .addHelpText('after', examples(['esign status', 'esign status --json | jq -r .base_url.value']))
    .action(action(() => import('./commands/status.js')));

  const config = program
    .command('config')
    .description('Read and change per-profile settings (base_url)')
    .addHelpText(
      'after',
      examples([
        'esign config set base_url https://esign.example.com/api/v1',
        'esign config get base_url --profile staging',
        'esign config list --json',
      ]),
    );
  const configAction = action(() => import('./commands/config.js'));
  config
    .command('get')
    .description('Print a setting')
    .argument('<key>', 'setting name (base_url)')
    .action(configAction);
  config
    .command('set')
    .description('Store a setting in the profile')
    .argument('<key>', 'setting name (base_url)')
    .argument('<value>', 'new value')
    .action(configAction);
  config
    .command('unset')
    .description('Remove a setting from the profile')
    .argument('<key>', 'setting name')
    .action(configAction);
  config
    .command('list')
    .description("List the profile's settings")
    .option('--json', 'print one JSON object')
    .action(configAction);

  const envelope = program.command('envelope').description('Create envelopes');
  envelope
    .command('create')
    .description('Create an envelope from a template and get its signing URL')
    .option('--template <id>', 'template id (a ULID); required')
    .option('--data <file>', 'JSON object of merge data; - reads stdin; repeatable, later files win', collect)
    .option('--set <key=value>', 'one merge field; repeatable; wins over --data', collect)
    .option('--name <full name>', "signatory's full name; required")
    .option('--email <address>', "signatory's email; required")
    .option('--phone <number>', "signatory's phone number")
    .option('--expires-in-days <n>', 'days until the envelope expires (the API default is 30)')
    .option('--dry-run', 'print the request body and exit; nothing is sent, no token needed')
    .addOption(new Option('--json', 'print the envelope as one JSON object').conflicts('quiet'))
    .option('-q, --quiet', 'print only the signing URL')
    .addHelpText(
      'after',
      examples([
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
    .argument('<file>', 'a .csv or .jsonl file; - reads stdin (with --format)')
    .addOption(new Option('--format <format>', 'input format (needed for stdin)').choices(['jsonl', 'csv']))
    .option('--template <id>', 'default template id for records without one')
    .option('--data <file>', 'default merge data (JSON object); repeatable', collect)
    .option('--set <key=value>', 'default merge field; repeatable', collect)
    .option('--expires-in-days <n>', 'default days until expiry')
    .option('--concurrency <n>', 'requests in flight at once (1-64)', '4')
    .option('--max-retries <n>', 'retries of a 429 or 503 answer per record', '5')
    .option('-o, --output <file>', 'write results (JSON Lines) to this file instead of stdout')
    .option('--resume', 'skip records already created in --output')
    .option('--retry-unknown', 'with --resume, send again records whose outcome was unknown')
    .addHelpText(
      'after',
      examples([
        'esign envelope batch hires.csv --template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E --output results.jsonl',
        '# The run broke off? Run it again: created records are not sent twice',
        'esign envelope batch hires.csv --template 01JD… --output results.jsonl --resume',
        'generate-records | esign envelope batch - --format jsonl > results.jsonl',
      ]),
    )
    .action(action(() => import('./commands/envelope/batch.js')));

  program
    .command('sandbox')
    .description('Run a local implementation of the API, for trying esign and rehearsing scripts')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '4010')
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--seed <file>', 'JSON file of organisations, tokens and templates (replaces the defaults)')
    .option('--state <file>', 'keep envelopes and revocations in this file across restarts')
    .option('--json', 'print the start-up details as one JSON object on stdout')
    .option('--latency <ms>', 'delay every answer by this many milliseconds')
    .option('--fail-rate <0..1>', 'share of create requests answered 503 with Retry-After')
    .option('--rate-limit <n>', 'create requests allowed per second before 429 with Retry-After')
    .option('--drop-rate <0..1>', 'share of creates whose connection is closed after the envelope was made')
    .option('--seed-random <n>', 'seed for the random failures, to make them reproducible')
    .addHelpText(
      'after',
      examples([
        'esign sandbox',
        'esign sandbox --port 0 --json > sandbox.json &',
        'esign sandbox --state sandbox-state.json --fail-rate 0.1 --seed-random 42',
      ]),
    )
    .action(action(() => import('./commands/sandbox.js')));

  program
    .command('completion')
    .description('Print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      examples([
        'esign completion bash > ~/.local/share/bash-completion/completions/esign',
        'esign completion zsh > ~/.zfunc/_esign    # with fpath+=(~/.zfunc) in ~/.zshrc',
        'esign completion fish > ~/.config/fish/completions/esign.fish',
      ]),
    )
    .action(action(() => import('./commands/completion.js')));

  return program;
}

// esign sandbox: run the local API until Ctrl-C or SIGTERM. Flags are checked here (a bad value is a
// usage error naming the flag); the server lives in src/sandbox/. Start-up details go to stdout (a
// readable block, or one JSON object with --json); request logs and notes go to stderr.
//
// The sandbox speaks HTTP, not CLI: it gets esign's lock and folder sync from here, and its errors
// (SandboxError, by kind) become esign's here, with the flag to change and the exit code.
import { constants } from 'node:fs';
import type { Context } from '../context.js';
import { CliError, type CliErrorOptions, ExitCode, InputError, UsageError } from '../errors.js';
import { describeReadError, isDiskFull } from '../fs/files.js';
import {
  acquireLock,
  busyLockAdvice,
  heldWhere,
  LEASE_MS,
  lockHeld,
  lockLost,
  releaseLock,
} from '../fs/lock.js';
import { openRegularFile } from '../fs/regular-file.js';
import { syncFolder } from '../fs/sync-folder.js';
import { themeFor } from '../io/theme.js';
import { formatRateLimit } from '../sandbox/faults/rate-limit.js';
import { SandboxError, type SandboxErrorKind } from '../sandbox/sandbox-error.js';
import {
  type RunningSandbox,
  type SandboxOptions,
  startSandbox as startBareSandbox,
} from '../sandbox/server.js';
import type { StateFileSystem } from '../sandbox/state/file-system.js';
import { loadSeedFile as loadBareSeedFile, type Seed } from '../sandbox/state/seed.js';
import { shellQuote } from '../text/shell.js';
import { isLoopbackHost } from '../transport/loopback.js';
import type { Options } from './global-flags.js';
import type { sandbox } from './sandbox.decl.js';

/** The flags, typed and checked from the declaration (a bad value is a usage error naming the flag). */
type SandboxFlags = Options<typeof sandbox>;

/**
 * The --state file cannot be used: corrupt, in use by another sandbox, or not writable. A corrupt
 * file is never replaced: the user decides what to do with it. Exit 2, like any bad input file.
 */
export class StateFileError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.usage, 'state_file', options);
  }
}

const CORRUPT_HINT =
  'The file was left as it is. Move it away to start afresh, or point --state at another file.';

/** What the sandbox said, as it said it: its hint and details, and the error itself as the cause. */
const asSaid = (error: SandboxError): CliErrorOptions => ({
  hint: error.hint,
  details: error.details,
  cause: error,
});

/**
 * Every kind of sandbox error as esign's: exit 2 (bad input; nothing was sent), the `code` of
 * --json errors (usage, invalid_input, state_file), and the words of the flag to change.
 */
const CLI_ERRORS: { [K in SandboxErrorKind]: (error: SandboxError) => CliError } = {
  bad_option: (e) => new UsageError(e.message, asSaid(e)),
  port_in_use: (e) =>
    new UsageError(e.message, { hint: 'Pick another with --port, or --port 0 for a free one.', cause: e }),
  port_forbidden: (e) =>
    new UsageError(e.message, { hint: 'Ports below 1024 need privileges; pick a higher --port.', cause: e }),
  no_such_address: (e) =>
    new UsageError(`Cannot listen on --host ${e.host}: no such address on this machine.`, asSaid(e)),
  seed_unreadable: (e) =>
    new InputError(`Cannot read the seed file ${e.file} (${describeReadError(e.cause)}).`, {
      hint: 'Check the --seed path.',
      cause: e,
    }),
  bad_seed: (e) => new InputError(e.message, asSaid(e)),
  state_corrupt: (e) => new StateFileError(e.message, { hint: CORRUPT_HINT, cause: e }),
  state_seed_mismatch: (e) =>
    new StateFileError(
      `The state file ${e.file} was made from a different seed than the one given with --seed.`,
      {
        hint: 'Start without --seed to use the organisations kept in the state file, or use another --state file for this seed.',
        cause: e,
      },
    ),
  state_in_use: (e) =>
    new StateFileError(e.message, {
      hint: `Stop that sandbox or use another --state file. ${busyLockAdvice(e.file ?? 'beside the state file')}`,
      cause: e,
    }),
  state_folder_missing: (e) =>
    new StateFileError(e.message, { hint: 'Create it, or pick another --state path.', cause: e }),
  state_lock_failed: (e) =>
    new StateFileError(e.message, {
      hint: isDiskFull(e.cause)
        ? 'The disk is full: free some space on the disk that holds --state, or put --state on another disk.'
        : 'Check that the folder of --state exists and is writable.',
      cause: e,
    }),
  state_io: (e) => new StateFileError(e.message, asSaid(e)),
  state_lock_lost: (e) =>
    new CliError(e.message, ExitCode.outputFailed, 'state_lock_lost', {
      hint: `Stop one of the two: the other sandbox serves --state ${e.file ?? ''} now, with every change this one saved before it stood still. A sandbox that stands still (a stopped job, Ctrl-Z) longer than ${LEASE_MS / 1000} s can lose its --state this way.`,
      cause: e,
    }),
};

/** A sandbox error as esign's (see CLI_ERRORS); anything else as it is. */
export function cliErrorOf(error: unknown): unknown {
  return error instanceof SandboxError ? CLI_ERRORS[error.kind](error) : error;
}

const rethrowAsCliError = (error: unknown): never => {
  throw cliErrorOf(error);
};

/** esign's own lock (stale owners taken over) and folder sync, for the --state file. */
export const ESIGN_FILE_SYSTEM: StateFileSystem = {
  acquireLock: (lockPath, errors) =>
    acquireLock(lockPath, {
      busy: (owner) => errors.busy(owner.pid, heldWhere(owner)),
      failed: errors.failed,
    }),
  releaseLock: (lockPath) => releaseLock(lockPath),
  lockHeld: (lockPath) => lockHeld(lockPath),
  lockLost: (lockPath) => lockLost(lockPath),
  syncFolder: (folder) => syncFolder(folder),
  openFile: async (path, how) => {
    const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT } = constants;
    const flags = { read: O_RDONLY, append: O_WRONLY | O_APPEND | O_CREAT, write: O_WRONLY | O_CREAT }[how];
    const { handle } = await openRegularFile(path, flags, { mode: 0o600 });
    try {
      // Emptied once it is known to be a regular file (O_TRUNC would empty whatever is there).
      if (how === 'write') await handle.truncate(0);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  },
};

/** Reads and checks a --seed file; its problems as esign's errors. */
export function loadSeedFile(path: string): Promise<Seed> {
  return loadBareSeedFile(path).catch(rethrowAsCliError);
}

/**
 * The sandbox as `esign sandbox` runs it (and the tests, in-process): esign's lock and folder sync
 * for the state file, and its errors, from starting or stopping, as esign's.
 */
export async function startSandbox(sandboxOptions: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startBareSandbox({
    ...sandboxOptions,
    fileSystem: sandboxOptions.fileSystem ?? ESIGN_FILE_SYSTEM,
  }).catch(rethrowAsCliError);
  return { ...sandbox, close: () => sandbox.close().catch(rethrowAsCliError) };
}

function faultsSummary(flags: SandboxFlags, sandbox: RunningSandbox): string | undefined {
  const parts: string[] = [];
  if (flags.latency) parts.push(`latency ${flags.latency} ms`);
  if (flags.failRate) parts.push(`fail-rate ${flags.failRate} (503)`);
  if (flags.rateLimit !== undefined)
    parts.push(
      `rate-limit ${formatRateLimit(flags.rateLimit)} per token (429), ${flags.rateLimitHeaders === 'none' ? 'no rate-limit headers' : `${flags.rateLimitHeaders} headers`}`,
    );
  if (flags.dropRate) parts.push(`drop-rate ${flags.dropRate}`);
  if (parts.length === 0) return undefined;
  return `${parts.join(', ')}; dice seeded with --seed-random ${sandbox.randomSeed}`;
}

function startupJson(sandbox: RunningSandbox, flags: SandboxFlags): string {
  return `${JSON.stringify({
    base_url: sandbox.baseUrl,
    url: sandbox.url,
    admin_secret: sandbox.adminSecret,
    state_file: sandbox.statePath,
    restored: sandbox.restored,
    faults: {
      latency_ms: flags.latency ?? 0,
      fail_rate: flags.failRate ?? 0,
      rate_limit: flags.rateLimit
        ? { limit: flags.rateLimit.limit, window_seconds: flags.rateLimit.windowSeconds }
        : null,
      rate_limit_headers: flags.rateLimitHeaders,
      drop_rate: flags.dropRate ?? 0,
      seed_random: sandbox.randomSeed,
    },
    keep_requests: flags.keepRequests,
    envelope_budget_mib: sandbox.envelopeBudget.bytes / (1024 * 1024),
    organisations: sandbox.organisations,
  })}\n`;
}

async function startupText(sandbox: RunningSandbox, flags: SandboxFlags, ctx: Context): Promise<string> {
  const c = await themeFor(ctx.terminal, 'stdout');
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`  ${c.dim(label.padEnd(15))}${value}`);
  lines.push(
    `${c.bold('esign sandbox')} is running: a local stand-in for the envelope API, with made-up data.`,
    '',
  );
  row('Base URL', c.cyan(sandbox.baseUrl));
  row('Signing pages', `${sandbox.url}/sign/<envelope_id>`);
  row(
    'Admin secret',
    `${sandbox.adminSecret}  ${c.dim('(for /_sandbox/…: tokens, faults, requests and envelopes received)')}`,
  );
  row(
    'State',
    sandbox.statePath === null
      ? 'in memory only (use --state <file> to keep envelopes across restarts)'
      : `${sandbox.statePath}${sandbox.restored ? ' (restored)' : ' (new)'}`,
  );
  const faults = faultsSummary(flags, sandbox);
  if (faults) row('Bad day', c.yellow(faults));
  for (const org of sandbox.organisations) {
    lines.push('', c.bold(org.name));
    for (const token of org.tokens) {
      const value = token.token ?? c.dim('(value shown only when it was made; kept as a hash)');
      lines.push(
        `  ${c.dim('Token'.padEnd(11))}${value}  ${c.dim(`"${token.name}"${token.revoked ? ', revoked' : ''}`)}`,
      );
    }
    if (org.templates.length === 0) lines.push(`  ${c.dim('Templates'.padEnd(11))}none`);
    const width = Math.max(0, ...org.templates.map((t) => t.name.length));
    org.templates.forEach((t, index) => {
      const label = index === 0 ? 'Templates' : '';
      const tags = t.merge_tags.length === 0 ? 'no merge tags' : t.merge_tags.join(', ');
      lines.push(`  ${c.dim(label.padEnd(11))}${t.id}  ${t.name.padEnd(width)}  ${c.dim(tags)}`);
    });
  }
  const org = sandbox.organisations.find((o) => o.token !== null && o.templates.length > 0);
  if (org?.token) {
    const template = org.templates[0] as RunningSandbox['organisations'][number]['templates'][number];
    const firstTag = template.merge_tags[0];
    lines.push(
      '',
      `Try it (the ${c.bold('sandbox')} profile keeps your real settings as they are):`,
      `  printf %s ${shellQuote(org.token)} | esign login --with-token --profile sandbox --base-url ${sandbox.baseUrl}`,
      `  esign envelope create --profile sandbox --template ${template.id} --name 'Ada Lovelace' --email ada@example.com${firstTag ? ` --set ${shellQuote(firstTag)}=${shellQuote(org.name)}` : ''}`,
    );
  }
  lines.push(
    '',
    'Rehearse a token rotation (revoke a token while the sandbox runs):',
    `  curl -s -X POST ${sandbox.url}/_sandbox/tokens/revoke -H 'Authorization: Bearer ${sandbox.adminSecret}' \\`,
    `    -H 'Content-Type: application/json' -d '{"token": "<token>"}'`,
    '',
    'Fail the next create on cue (or send the header X-Sandbox-Fault: 503 with one request):',
    `  curl -s -X POST ${sandbox.url}/_sandbox/faults -H 'Authorization: Bearer ${sandbox.adminSecret}' \\`,
    `    -H 'Content-Type: application/json' -d '{"next": ["503"]}'`,
    '',
    c.dim('Requests are logged on stderr. Ctrl-C stops the sandbox.'),
  );
  return `${lines.join('\n')}\n`;
}

/** Writes log lines in batches (one write per event-loop turn): thousands of requests a second stay cheap. */
function batchedLog(ctx: Context): { log: (line: string) => void; flush: () => void } {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    ctx.stderr.write(text);
  };
  const log = (line: string) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(line);
  };
  return { log, flush };
}

export async function run(flags: SandboxFlags, ctx: Context): Promise<number> {
  const seed = flags.seed === undefined ? undefined : await loadSeedFile(flags.seed);
  const { log, flush } = batchedLog(ctx);
  const options: SandboxOptions = {
    port: flags.port,
    host: flags.host,
    seed,
    statePath: flags.state,
    latencyMs: flags.latency ?? 0,
    failRate: flags.failRate ?? 0,
    rateLimit: flags.rateLimit ?? null,
    rateLimitHeaders: flags.rateLimitHeaders,
    keepRequests: flags.keepRequests,
    envelopeBudget: flags.envelopeBudget * 1024 * 1024,
    dropRate: flags.dropRate ?? 0,
    randomSeed: flags.seedRandom,
    log,
    now: () => ctx.now(),
  };
  const sandbox = await startSandbox(options);
  if (!isLoopbackHost(flags.host)) {
    ctx.stderr.write(
      `warning: listening on ${flags.host}: anyone who can reach this machine can use the sandbox and its well-known tokens.\n`,
    );
  }
  const budget = sandbox.envelopeBudget;
  if (budget.byHeap) {
    const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
    ctx.stderr.write(
      `note: envelopes may take ${mib(budget.bytes)}, not the ${mib(budget.askedBytes)} asked: that is what this Node's heap of ${mib(budget.heapLimitBytes)} holds beside the rest of the sandbox. Past it a create is answered 507; for more, start it with a larger heap (NODE_OPTIONS=--max-old-space-size=<MiB>).\n`,
    );
  }
  ctx.stdout.write(flags.json ? startupJson(sandbox, flags) : await startupText(sandbox, flags, ctx));

  // Until Ctrl-C or SIGTERM; or until its --state was taken over by another sandbox (this one stood
  // still past its lease): then it stops serving, writes nothing more, and close() says why (exit 9).
  const stops = [ctx.signal, ...(sandbox.stateLost ? [sandbox.stateLost] : [])];
  await new Promise<void>((resolve) => {
    if (stops.some((signal) => signal.aborted)) resolve();
    else for (const signal of stops) signal.addEventListener('abort', () => resolve(), { once: true });
  });
  flush();
  ctx.stderr.write(
    ctx.signal.aborted
      ? 'Stopping: finishing requests in flight…\n'
      : 'Stopping: another sandbox took over the state file; this one writes nothing more.\n',
  );
  await sandbox.close();
  flush();
  ctx.stderr.write(sandbox.statePath ? `Stopped. State saved in ${sandbox.statePath}.\n` : 'Stopped.\n');
  return ExitCode.ok;
}

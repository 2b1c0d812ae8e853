// esign sandbox: run the local API until Ctrl-C or SIGTERM. Flags are checked here (a bad value is a
// usage error naming the flag); the server lives in src/sandbox/. Start-up details go to stdout (a
// readable block, or one JSON object with --json); request logs and notes go to stderr.
import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { themeFor } from '../io/theme.js';
import { isLoopbackHost } from '../net/loopback.js';
import { formatRateLimit, RATE_LIMIT_HEADER_STYLES, rateLimitPolicySchema } from '../sandbox/rate-limit.js';
import { loadSeedFile } from '../sandbox/seed.js';
import {
  DEFAULT_KEEP_REQUESTS,
  type RunningSandbox,
  type SandboxOptions,
  startSandbox,
} from '../sandbox/server.js';
import { globalOptions, share, wholeNumber } from './options.js';

/** The flags, typed and checked: a bad value is a usage error naming the flag. */
export const options = z.object({
  ...globalOptions,
  port: z._default(wholeNumber(0, 65535, 'a port number from 0 to 65535 (0 picks a free port)'), 4010),
  host: z._default(
    z
      .string()
      .check(
        z.refine((s) => s.trim() !== '' && !/\s/.test(s), 'must be an address to listen on, like 127.0.0.1'),
      ),
    '127.0.0.1',
  ),
  seed: z.optional(z.string().check(z.minLength(1, 'must be a file path'))),
  state: z.optional(z.string().check(z.minLength(1, 'must be a file path'))),
  latency: z.optional(wholeNumber(0, 60_000, 'a whole number of milliseconds from 0 to 60000')),
  failRate: z.optional(share()),
  rateLimit: z.optional(rateLimitPolicySchema()),
  rateLimitHeaders: z._default(z.enum(RATE_LIMIT_HEADER_STYLES), 'x-ratelimit'),
  keepRequests: z._default(
    wholeNumber(0, 1_000_000, 'a whole number from 0 (keep none) to 1000000'),
    DEFAULT_KEEP_REQUESTS,
  ),
  dropRate: z.optional(share()),
  seedRandom: z.optional(wholeNumber(0, 2 ** 32 - 1)),
});
type SandboxFlags = z.infer<typeof options>;

/** Quotes a value for a POSIX shell when it needs it. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
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
    organisations: sandbox.organisations,
  })}\n`;
}

function startupText(sandbox: RunningSandbox, flags: SandboxFlags, ctx: Context): string {
  const c = themeFor(ctx.terminal, 'stdout');
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
  ctx.stdout.write(flags.json ? startupJson(sandbox, flags) : startupText(sandbox, flags, ctx));

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  flush();
  ctx.stderr.write('Stopping: finishing requests in flight…\n');
  await sandbox.close();
  flush();
  ctx.stderr.write(sandbox.statePath ? `Stopped. State saved in ${sandbox.statePath}.\n` : 'Stopped.\n');
  return ExitCode.ok;
}

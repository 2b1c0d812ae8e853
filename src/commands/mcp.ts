// esign mcp: the same checked path as `envelope create`, `templates` and `status`, behind a Model
// Context Protocol server on stdio, for assistants. Standard output carries the protocol and nothing
// else; everything else goes to stderr through the one redaction, and the token is never a tool
// argument nor in any result. A create is sent only once a person confirmed it through the client,
// unless the server was started with --confirm never.
import { Writable } from 'node:stream';
import { format } from 'node:util';
import { loadSettings } from '../config/connect.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { ConfirmationLedger } from '../mcp/confirm.js';
import { serverRules } from '../mcp/server-options.js';
import { chooseTools } from '../mcp/tool-names.js';
import { connectionOf } from '../options.js';
import { describeAllowedDomain } from '../request/signatory-domains.js';
import type { Options } from './global-flags.js';
import type { mcp } from './mcp.decl.js';

type McpOptions = Options<typeof mcp>;

export async function run(flags: McpOptions, ctx: Context): Promise<number> {
  const rules = serverRules(
    { confirm: flags.confirm, allowDomain: flags.allowDomain, readOnly: flags.readOnly },
    ctx.env,
  );
  const chosen = chooseTools({
    readOnly: rules.readOnly,
    tools: flags.tools,
    readOnlyFrom: rules.readOnlyFrom,
  });
  // Read once: every call works with the settings the server started with.
  const settings = loadSettings(connectionOf(flags), ctx);
  const [{ serveOffer }, { serverOffer }, { templatesReport }, { statusReport }] = await Promise.all([
    import('../mcp/server.js'),
    import('../mcp/offer.js'),
    import('./templates.js'),
    import('./status.js'),
  ]);
  // The first Ctrl-C or SIGTERM stops the server, and the calls running finish and are answered;
  // only a second one aborts them (a create then says its outcome is unknown), as in a batch.
  ctx.secondInterrupt.claim();
  const deps = {
    settings,
    verbose: flags.verbose === true,
    // What a tool (or a library) would write to stdout goes to stderr: stdout is the protocol's.
    ctx: { ...ctx, stdout: ctx.stderr, signal: ctx.secondInterrupt.signal },
    confirm: rules.confirm,
    allowedDomains: rules.allowedDomains,
    ledger: new ConfirmationLedger(() => ctx.now().getTime()),
    templates: () => templatesReport(settings),
    status: () => statusReport(settings),
  };
  const offer = serverOffer(chosen, deps);
  // The client's log of the server (stderr) says what it serves; a person who ran it by hand learns what it waits for.
  ctx.stderr.write(
    `esign mcp: serving ${chosen.join(', ')} (profile '${settings.profile.value}') on standard input and output.\n`,
  );
  if (chosen.includes('create_envelope')) ctx.stderr.write(`esign mcp: ${sendingRules(rules)}\n`);
  if (ctx.stdin.isTTY) ctx.stderr.write('esign mcp: an MCP client starts this; press Ctrl-C to stop.\n');
  const restoreConsole = consoleTo(ctx.stderr);
  try {
    await serveOffer(offer, {
      stdin: ctx.stdin.stream(),
      stdout: protocolStream(ctx),
      signal: ctx.signal,
      version: ctx.version,
      log: (line) => ctx.stderr.write(`esign mcp: ${line}\n`),
    });
  } finally {
    restoreConsole();
  }
  return ExitCode.ok;
}

/** What the log says of sending: who confirms, and to which domains. */
function sendingRules(rules: ReturnType<typeof serverRules>): string {
  const confirm =
    rules.confirm === 'ask'
      ? 'create_envelope sends only what a person confirmed through the client (--confirm ask)'
      : 'create_envelope sends without asking anyone to confirm (--confirm never)';
  const domains = rules.allowedDomains.map(describeAllowedDomain);
  return `${confirm}${domains.length > 0 ? `, only to signatories at ${domains.join(', ')}` : ''}.`;
}

/** The protocol's way out: stdout, through the same redaction as every other line esign writes. */
function protocolStream(ctx: Context): Writable {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      ctx.stdout.write(String(chunk));
      const failure = ctx.stdout.failure?.();
      if (failure) return callback(failure);
      const drained = ctx.stdout.drained?.();
      if (drained) drained.then(() => callback(ctx.stdout.failure?.() ?? null));
      else callback();
    },
  });
  ctx.stdout.onFailure?.((error) => stream.destroy(error));
  return stream;
}

/** Sends console output (a library's warning, a stray log) to stderr, redacted, for as long as the server runs. */
function consoleTo(stderr: Context['stderr']): () => void {
  const methods = ['log', 'info', 'debug', 'warn', 'error', 'trace'] as const;
  const saved = methods.map((name) => console[name]);
  for (const name of methods) {
    console[name] = (...args: unknown[]) => {
      stderr.write(`${format(...args)}\n`);
    };
  }
  return () => {
    methods.forEach((name, index) => {
      console[name] = saved[index] as (typeof console)[typeof name];
    });
  };
}

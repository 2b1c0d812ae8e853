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
import { redactStrings } from '../text/redact.js';
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

/**
 * The protocol's way out: stdout, each message redacted as the one redaction decides, but value by
 * value: every string in it (a tool's text, an error's message) is masked where it holds a secret,
 * and the protocol's own text (keys, structure) never is, so no message is ever corrupted. A line
 * that is not a JSON message is redacted as text.
 */
function protocolStream(ctx: Context): Writable {
  const out = (text: string) => (ctx.stdout.writeRedacted ?? ctx.stdout.write).call(ctx.stdout, text);
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      pending += String(chunk);
      const end = pending.lastIndexOf('\n');
      if (end !== -1) {
        const lines = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        out(
          lines
            .split('\n')
            .map((line) => redactMessage(line, ctx.redact))
            .join('\n'),
        );
      }
      const failure = ctx.stdout.failure?.();
      if (failure) return callback(failure);
      const drained = ctx.stdout.drained?.();
      if (drained) drained.then(() => callback(ctx.stdout.failure?.() ?? null));
      else callback();
    },
    final(callback) {
      if (pending !== '') out(ctx.redact(pending));
      callback();
    },
  });
  ctx.stdout.onFailure?.((error) => stream.destroy(error));
  return stream;
}

/** One line of the protocol with every secret masked in its values; the line as it is when it holds none. */
function redactMessage(line: string, redact: (text: string) => string): string {
  if (redact(line) === line) return line;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return redact(line);
  }
  return JSON.stringify(redactStrings(message, redact));
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

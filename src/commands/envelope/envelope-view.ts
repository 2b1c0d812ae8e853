// The created envelope as a person reads it. A module of its own, imported only when it draws: with
// -q or --json, create prints one line or one object and never loads chalk.
import type { Envelope } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { drawable, themeFor } from '../../io/theme.js';
import { formatRelative, formatUtc } from '../../text/time.js';

/** The envelope for a person: a short block, coloured on a terminal, the same facts plain elsewhere. */
export function renderEnvelope(envelope: Envelope, ctx: Context): string {
  const c = themeFor(ctx.terminal, 'stdout');
  const expires = new Date(envelope.expires_at);
  const rows: [string, string][] = [
    ['Envelope ID', envelope.envelope_id],
    ['Status', c.bold(envelope.status)],
    ['Signing URL', c.cyan.underline(envelope.signing_url)],
    ['Expires', `${formatUtc(expires)} ${c.dim(`(${formatRelative(expires, ctx.now())})`)}`],
  ];
  const head = ctx.terminal.stdoutIsTTY
    ? `${c.green(drawable(ctx.terminal, '✓'))} Envelope created\n`
    : 'Envelope created\n';
  return `${head}${rows.map(([label, value]) => `  ${c.dim(label.padEnd(13))}${value}`).join('\n')}\n`;
}

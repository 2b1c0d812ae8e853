// The created envelope as a person reads it (with -q or --json, create prints one line or one
// object). Imported with the command, not when it draws: a module loaded on its own cost a create
// more than the little code it holds. Chalk is loaded only where stdout shows colour.
import type { Envelope } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { drawable, themeFor } from '../../io/theme.js';
import { formatRelative, formatUtc } from '../../text/time.js';

/** The envelope for a person: a short block, coloured on a terminal, the same facts plain elsewhere. */
export async function renderEnvelope(envelope: Envelope, ctx: Context): Promise<string> {
  const c = await themeFor(ctx.terminal, 'stdout');
  const expires = new Date(envelope.expires_at);
  const rows: [string, string][] = [
    ['Envelope ID', envelope.envelope_id],
    ['Status', c.bold(envelope.status)],
    ['Signing URL', c.cyan.underline(envelope.signing_url)],
    ['Expires', `${formatUtc(expires)} ${c.dim(`(${formatRelative(expires, ctx.now())})`)}`],
  ];
  // The mark says what the words say: in accessible mode it goes (io/terminal.ts).
  const mark = drawable(ctx.terminal, '✓ ').trim();
  const head =
    ctx.terminal.stdoutIsTTY && mark ? `${c.green(mark)} Envelope created\n` : 'Envelope created\n';
  return `${head}${rows.map(([label, value]) => `  ${c.dim(label.padEnd(13))}${value}`).join('\n')}\n`;
}

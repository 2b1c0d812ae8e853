// After a create, for the person in front of the screen: `--qr` draws the signing URL as a QR code
// on stderr (stdout stays what -q and --json promise), `--open` opens it in the browser. Neither
// can fail the create: the envelope exists, and each problem is a warning.
import type { Context, OutputStream } from '../context.js';
import { openUrl } from '../io/open-url.js';
import { qrDrawing } from '../io/qr.js';
import { escapeControl } from '../text/terminal-text.js';

export interface LinkWanted {
  qr?: boolean | undefined;
  open?: boolean | undefined;
  /** Under GitHub Actions: the URL is masked in the log, and a QR code would show it unmasked. */
  actions: boolean;
}

/**
 * Draws and opens what was asked for; never throws: each problem, even an unexpected one, is a
 * warning. What the person asked for, and why it did not happen, reach stderr even under --json
 * (whose stderr holds notes back, and drops them on success): the person is waiting for it.
 */
export async function showLink(url: string, wanted: LinkWanted, ctx: Context): Promise<void> {
  const out = ctx.stderr.drawing?.() ?? ctx.stderr;
  if (wanted.qr) courtesy('--qr', () => drawQr(url, wanted.actions, out, ctx), out);
  if (wanted.open) {
    let problem: string | undefined;
    try {
      problem = await openUrl(url, ctx.env, ctx.platform);
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem) {
      out.write(
        `warning: could not open the signing URL (${escapeControl(problem)}); the envelope was created. Set BROWSER to the browser command to use.\n`,
      );
    }
  }
}

function courtesy(flag: string, step: () => void, out: OutputStream): void {
  try {
    step();
  } catch (error) {
    out.write(
      `warning: ${flag} failed (${escapeControl((error as Error).message)}); the envelope was created.\n`,
    );
  }
}

function drawQr(url: string, actions: boolean, out: OutputStream, ctx: Context): void {
  if (actions) {
    out.write(
      'warning: --qr draws nothing under GitHub Actions: the signing URL is masked in the log, and a QR code would show it to anyone who reads the log.\n',
    );
    return;
  }
  const drawing = qrDrawing(url, ctx.terminal.unicode, out.isTTY ? out.columns : undefined);
  if ('problem' in drawing) {
    out.write(`warning: --qr drew no code: ${drawing.problem}. The envelope was created.\n`);
    return;
  }
  out.write(`\n${drawing.lines.join('\n')}\n\nScan to sign: the code holds the signing URL.\n`);
}

// After a create, for the person in front of the screen: `--qr` draws the signing URL as a QR code
// on stderr (stdout stays what -q and --json promise), `--open` opens it in the browser. Neither
// can fail the create: the envelope exists, and each problem is a warning.
import type { Context } from '../context.js';
import { openUrl } from '../io/open-url.js';
import { qrLines } from '../io/qr.js';
import { escapeControl } from '../text/terminal-text.js';

export interface LinkWanted {
  qr?: boolean | undefined;
  open?: boolean | undefined;
  /** Under GitHub Actions: the URL is masked in the log, and a QR code would show it unmasked. */
  actions: boolean;
}

export async function showLink(url: string, wanted: LinkWanted, ctx: Context): Promise<void> {
  if (wanted.qr) drawQr(url, wanted.actions, ctx);
  if (wanted.open) {
    const problem = await openUrl(url, ctx.env, ctx.platform);
    if (problem) {
      ctx.stderr.write(
        `warning: could not open the signing URL (${escapeControl(problem)}); the envelope was created. Set BROWSER to the browser command to use.\n`,
      );
    }
  }
}

function drawQr(url: string, actions: boolean, ctx: Context): void {
  if (actions) {
    ctx.stderr.write(
      'warning: --qr draws nothing under GitHub Actions: the signing URL is masked in the log, and a QR code would show it to anyone who reads the log.\n',
    );
    return;
  }
  ctx.stderr.write(
    `\n${qrLines(url, ctx.terminal.unicode).join('\n')}\n\nScan to sign: the code holds the signing URL.\n`,
  );
}

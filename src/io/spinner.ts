// A spinner on stderr while something slow happens, where the run's terminal decision allows one,
// in the symbols that terminal shows (ASCII frames and text under LANG=C).
// Its colour is that decision's too: the frames are coloured here, with ora's own colouring off
// (ora's chalk would decide by the process's environment, not the run's).
// In accessible mode a spinner is plain lines instead, which a screen reader reads once each: one
// when the work starts, one every 30 seconds while it goes on, one when it ends.
import type { Ora } from 'ora';
import type { Context } from '../context.js';
import { secondsText } from '../text/units.js';
import { drawable, spinnerFrames, themeFor } from './theme.js';

/** How the work ended, for the last plain line: done, or failed (the error follows). */
type SpinnerEnd = 'done' | 'failed';

export interface Spinner {
  stop(end?: SpinnerEnd): void;
  /** Replaces the text beside the spinner. */
  setText(text: string): void;
}

/** A spinner that draws nothing: where none is wanted, or asked for (-q, --json). */
export const NO_SPINNER: Spinner = { stop() {}, setText() {} };

/** How often a plain "still working" line is written in accessible mode. */
export const STILL_WORKING_EVERY_MS = 30_000;

/** An ora spinner drawn as the context decided. */
async function startOra(ctx: Context, text: string): Promise<Ora> {
  const { default: ora } = await import('ora');
  const spinner = ora({
    text: drawable(ctx.terminal, text),
    stream: ctx.spinnerStream,
    isEnabled: true,
    discardStdin: false,
    color: false,
  });
  const theme = await themeFor(ctx.terminal, 'stderr');
  const { interval, frames } = spinnerFrames(ctx.terminal) ?? spinner.spinner;
  spinner.spinner = { interval, frames: frames.map((frame) => theme.cyan(frame)) };
  return spinner.start();
}

/**
 * `doing`, in words a line can end on ("Creating the envelope"): a line now, "still working" every
 * STILL_WORKING_EVERY_MS, and a last line saying how it ended. Never redrawn.
 */
function plainLines(ctx: Context, doing: string): Spinner {
  const started = ctx.now().getTime();
  ctx.stderr.write(`${doing}.\n`);
  const ticker = setInterval(() => {
    const took = secondsText(ctx.now().getTime() - started).replace(/\.\d /, ' ');
    ctx.stderr.write(`Still working: ${doing.charAt(0).toLowerCase()}${doing.slice(1)} (${took} so far).\n`);
  }, STILL_WORKING_EVERY_MS);
  ticker.unref();
  let stopped = false;
  return {
    stop: (end = 'done') => {
      if (stopped) return;
      stopped = true;
      clearInterval(ticker);
      ctx.stderr.write(`${doing}: ${end}.\n`);
    },
    setText: () => {},
  };
}

/**
 * A spinner beside `text` ("Creating envelope…"), or its plain lines in accessible mode (`text`
 * without its ellipsis), or nothing where neither is wanted (a pipe, CI, TERM=dumb).
 */
export async function startSpinner(ctx: Context, text: string): Promise<Spinner> {
  if (ctx.terminal.plainProgress) return plainLines(ctx, text.replace(/(\u2026|\.\.\.)$/, ''));
  if (!ctx.terminal.animations) return NO_SPINNER;
  const spinner = await startOra(ctx, text);
  return {
    stop: () => spinner.stop(),
    setText: (next) => {
      spinner.text = drawable(ctx.terminal, next);
    },
  };
}

// A spinner on stderr while something slow happens, where the run's terminal decision allows one,
// in the symbols that terminal shows (ASCII frames and text under LANG=C).
// Its colour is that decision's too: the frames are coloured here, with ora's own colouring off
// (ora's chalk would decide by the process's environment, not the run's).
import type { Ora } from 'ora';
import type { Context } from '../context.js';
import { drawable, spinnerFrames, themeFor } from './theme.js';

export interface Spinner {
  stop(): void;
  /** Replaces the text beside the spinner. */
  setText(text: string): void;
}

const NONE: Spinner = { stop() {}, setText() {} };

/** An ora spinner drawn as the context decided; undefined when no spinner is drawn. */
async function startOra(ctx: Context, text: string): Promise<Ora | undefined> {
  if (!ctx.terminal.animations) return undefined;
  const { default: ora } = await import('ora');
  const spinner = ora({
    text: drawable(ctx.terminal, text),
    stream: ctx.spinnerStream,
    isEnabled: true,
    discardStdin: false,
    color: false,
  });
  const theme = themeFor(ctx.terminal, 'stderr');
  const { interval, frames } = spinnerFrames(ctx.terminal) ?? spinner.spinner;
  spinner.spinner = { interval, frames: frames.map((frame) => theme.cyan(frame)) };
  return spinner.start();
}

export async function startSpinner(ctx: Context, text: string): Promise<Spinner> {
  const spinner = await startOra(ctx, text);
  if (!spinner) return NONE;
  return {
    stop: () => spinner.stop(),
    setText: (next) => {
      spinner.text = drawable(ctx.terminal, next);
    },
  };
}

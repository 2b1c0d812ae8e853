// A spinner on stderr while something slow happens, only where stderr is a terminal.
import type { Context } from '../context.js';

export interface Spinner {
  stop(): void;
}

const NONE: Spinner = { stop() {} };

export async function startSpinner(ctx: Context, text: string): Promise<Spinner> {
  if (!ctx.stderr.isTTY || ctx.env.CI) return NONE;
  const { default: ora } = await import('ora');
  const spinner = ora({
    text,
    stream: ctx.stderr as unknown as NodeJS.WritableStream,
    isEnabled: true,
    discardStdin: false,
    color: ctx.env.NO_COLOR ? false : 'cyan',
  }).start();
  return { stop: () => spinner.stop() };
}

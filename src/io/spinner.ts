// A spinner on stderr while something slow happens, only where stderr is a terminal.
import type { Context } from '../context.js';

export interface Spinner {
  stop(): void;
}

const NONE: Spinner = { stop() {} };

export async function startSpinner(ctx: Context, text: string): Promise<Spinner> {
  if (!spinnerWanted(ctx)) return NONE;
  const { default: ora } = await import('ora');
  const spinner = ora({
    text,
    stream: ctx.spinnerStream,
    isEnabled: true,
    discardStdin: false,
    color: ctx.env.NO_COLOR ? false : 'cyan',
  }).start();
  return { stop: () => spinner.stop() };
}

/**
 * Only on a terminal of known width (ora loops forever on a zero-column pty, as `script` makes),
 * and not in CI logs.
 */
export function spinnerWanted(ctx: Context): boolean {
  return ctx.stderr.isTTY && (ctx.stderr.columns ?? 0) > 0 && !ctx.env.CI;
}

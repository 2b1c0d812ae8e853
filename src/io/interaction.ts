// Whether esign may ask the person in front of it: decided once, here, for every prompt (the
// create walk-through, the batch's duplicates question). Only when someone can answer and no
// script is reading: stdin and stdout are terminals, not CI, and neither `--no-input` nor
// ESIGN_NO_INPUT=1 said no; output modes for scripts (`--json`, `-q`) and `--dry-run` never ask.
import type { Context } from '../context.js';
import { inCi } from './terminal.js';

export interface AskingChoice {
  noInput?: boolean | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
  dryRun?: boolean | undefined;
}

/** ESIGN_NO_INPUT: 1 or true (any case) turns prompts off, as --no-input does. */
function noInputFromEnv(value: string | undefined): boolean {
  const chosen = value?.trim().toLowerCase();
  return chosen === '1' || chosen === 'true';
}

export function promptsAllowed(
  asking: AskingChoice,
  ctx: Pick<Context, 'stdin' | 'terminal' | 'env'>,
): boolean {
  if (asking.noInput || asking.json || asking.quiet || asking.dryRun) return false;
  if (noInputFromEnv(ctx.env.ESIGN_NO_INPUT) || inCi(ctx.env)) return false;
  return ctx.stdin.isTTY && ctx.terminal.stdoutIsTTY;
}

// The batch command a user is told to run next (to resume after an interrupt or a failed output,
// to send unknown records again), made from the command table: every flag of `esign envelope
// batch` and every global flag marked to be repeated on resume (src/commands/envelope/envelope.decl.ts)
// is printed with the value the run used, written as its kind is written (a rate as 100/min, a
// duration as 15m). Pasted as printed into a POSIX shell, it sends to the same API (base URL,
// profile), as fast and as patiently, the same records, and writes to the same --output. Every
// value is printed, defaults too: a resume by a later version whose defaults changed still runs as
// the first half did. The token is never a flag, so never in it.
import type { FlagDecl, FlagValue, KeyOf } from '../../command-types.js';
import { keyOf } from '../../declarations.js';
import { shellQuote } from '../../text/shell.js';
import { durationText, type Rate, rateText } from '../../text/units.js';
import { GLOBAL_FLAGS } from '../global-flags.js';
import { batch } from './envelope.decl.js';

type Resumed = Extract<(typeof batch.flags)[number] | (typeof GLOBAL_FLAGS)[number], { resume: true }>;

/** The run's values of the flags a resume repeats, by options key, and its input file. */
export type NextCommandOptions = { file: string } & {
  [F in Resumed as KeyOf<F['flag']>]?: FlagValue<F> | readonly string[] | undefined;
};

export type NextStep = '--resume' | '--retry-unknown';

/**
 * The flags a resume repeats, the command's own first, in the order its help lists them; --output
 * last, beside the --resume it goes with (`… --output results.jsonl --resume`, as printed before).
 */
const RESUMED: readonly FlagDecl[] = [...batch.flags, ...GLOBAL_FLAGS]
  .filter((flag) => 'resume' in flag && flag.resume)
  .sort((a, b) => Number(a.flag === '--output') - Number(b.flag === '--output'));

/** `--flag value`, or `--flag=value` when the value starts with a dash (never read as a flag). */
function flag(name: string, value: string): string[] {
  return value.startsWith('-') && value !== '-' ? [`${name}=${value}`] : [name, value];
}

/** A flag and its value as written on a command line, by the flag's kind. */
function flagWords(decl: FlagDecl, value: unknown): string[] {
  if (value === undefined || value === false) return [];
  switch (decl.kind) {
    case 'boolean':
      return [decl.flag];
    case 'list':
    case 'paths':
      return (value as readonly string[]).flatMap((each) => flag(decl.flag, each));
    case 'rate':
      return flag(decl.flag, rateText(value as Rate));
    case 'duration':
      return flag(decl.flag, durationText(value as number));
    default:
      return flag(decl.flag, String(value));
  }
}

/** The words of the command, unquoted: `esign envelope batch … --resume`. */
function nextCommandWords(options: NextCommandOptions, steps: readonly NextStep[]): string[] {
  // A file named like a flag goes after `--`, where nothing is read as one.
  const dashed = options.file.startsWith('-') && options.file !== '-';
  const values = options as Record<string, unknown>;
  return [
    'esign',
    'envelope',
    batch.name,
    ...(dashed ? [] : [options.file]),
    ...RESUMED.flatMap((decl) => flagWords(decl, values[keyOf(decl.flag)])),
    ...steps,
    ...(dashed ? ['--', options.file] : []),
  ];
}

/** The command as the user can paste it into a POSIX shell. */
export function nextCommand(options: NextCommandOptions, steps: readonly NextStep[] = ['--resume']): string {
  return nextCommandWords(options, steps).map(shellQuote).join(' ');
}
